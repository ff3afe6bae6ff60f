"""Issue 17, item 7 (the host's part of item 5): whose turn it is in a paused game."""

from support.cli import own_home, run  # noqa: F401 (own_home: autouse)

SD_10M = {"type": "sudden_death", "main": 600}


def test_a_paused_status_shows_whose_turn_it_is(line, capsys):
    line.clock.configure(SD_10M)
    line.clock.start()
    line.clock.play([(line.clock.now + 5000, "black")])
    line.clock.ask("pause")
    rc, out, err = run(capsys, "--port", line.path, "status")
    assert rc == 0, err
    rows = {side: ln for ln in out.splitlines() for side in ("black", "white") if side in ln}
    assert "▶ white" in rows["white"] and "▶" not in rows["black"]
    assert out.splitlines()[0].strip() == "paused, 1 move played"
