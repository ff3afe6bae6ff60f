"""Issue 17, item 7 (the host's part of item 5): what `arrive` charged, whose turn it is in a
paused game, a side marked late shown as absent — in `arrive`, `status` and `watch`."""

from goclock.cli import build_parser, device
from support.cli import own_home, run  # noqa: F401 (own_home: autouse)

SD_10M = {"type": "sudden_death", "main": 600}


def test_arrive_says_what_was_charged(line, capsys):
    line.clock.configure(SD_10M)
    line.clock.ask("late", side="black")
    line.clock.start()
    line.clock.run(60000)  # Black's clock ran the minute it was away
    rc, out, err = run(capsys, "--port", line.path, "arrive", "black")
    assert rc == 0, err
    assert out == (
        "black arrived 1:00 late: twice that, 2:00, is charged in all; 1:00 came off main "
        "time now (now 8:00)\n"
    )
    # White late, Black to move: White's clock never ran, all of it comes off now.
    line.clock.ask("pause")  # a new game: the running one paused first, as an arbiter would
    line.clock.configure(SD_10M)
    line.clock.ask("late", side="white")
    line.clock.start()
    line.clock.run(30000)
    rc, out, err = run(capsys, "--port", line.path, "arrive", "white")
    assert "white arrived 0:30 late: twice that, 1:00, is charged in all; 1:00 came off" in out


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


def test_a_late_side_is_shown_absent_until_it_arrives(line, capsys):
    line.clock.configure(SD_10M)
    line.clock.ask("late", side="white")
    line.clock.start()
    line.clock.run(20000)
    rc, out, err = run(capsys, "--port", line.path, "status")
    white = next(ln for ln in out.splitlines() if "white" in ln)
    assert "10:00  ABSENT" in white and "ABSENT" not in out.replace(white, "")
    args = build_parser().parse_args(["--port", line.path, "watch", "--seconds", "0"])
    device.do_watch(args, now=lambda: 0.0)
    out = capsys.readouterr().out
    assert "white 10:00  ABSENT" in out.splitlines()[0]
    run(capsys, "--port", line.path, "arrive", "white")
    rc, out, err = run(capsys, "--port", line.path, "status")
    assert "ABSENT" not in out
