"""The application on the desktop board under the MicroPython unix port, in virtual time.

Buttons are driven by "!down"/"!up" at exact virtual ticks; results are read
over the real pty serial line (status, logs) and from the console (calls).
"""

import os

from goclockfw.storage.logline import verify_bytes
from support.firmware import boot, flash_file, log_bytes, notices, said, set_tc, status, tap

SUDDEN_10S = {"type": "sudden_death", "main": 10}


def test_white_starts_presses_charged_from_first_edge_bounce_and_hold_count_once(tmp_path):
    fw = boot(tmp_path)
    try:
        set_tc(fw, SUDDEN_10S)
        tap(fw, "left")  # Black's button cannot start the game
        assert status(fw)["state"] == "idle"
        fw.keys("l")  # White's button (right) starts Black's clock
        fw.wait(1000)
        st = status(fw)
        assert st["state"] == "running" and st["turn"] == "black"
        # Black presses at +1000 ms (bouncing), holds 2 s, releases (bouncing).
        fw.keys("!down left\n")
        fw.wait(1)
        fw.keys("!up left\n")
        fw.wait(2)
        fw.keys("!down left\n")
        fw.wait(2000)
        fw.keys("!up left\n")
        fw.wait(1)
        fw.keys("!down left\n")
        fw.wait(1)
        fw.keys("!up left\n")
        fw.wait(100)
        st = status(fw)
        assert st["moves"] == 1 and st["turn"] == "white"
        assert st["black"]["main_ms"] == 9000  # charged from the first edge, not the confirmation
        assert st["white"]["main_ms"] == 10000 - 2105  # White runs since the first edge
        # Black's button again: not Black's move, ignored.
        tap(fw, "left")
        assert status(fw)["moves"] == 1
        records = verify_bytes(log_bytes(tmp_path, st["game"]))
        assert records["ok"]
        kinds = [r["event"] for r in records["records"]]
        assert kinds.count("press") == 1 and "ignored" in kinds
        press = next(r for r in records["records"] if r["event"] == "press")
        assert press["used_ms"] == 1000 and press["main_ms"] == 9000
    finally:
        fw.stop()


def test_press_one_ms_before_the_flag_counts(tmp_path):
    fw = boot(tmp_path)
    try:
        set_tc(fw, SUDDEN_10S)
        fw.keys("l")
        fw.wait(9999)
        fw.keys("!down left\n")  # 1 ms before the flag; confirmed only 10 ms later
        fw.wait(30)
        fw.keys("!up left\n")
        fw.wait(30)
        st = status(fw)
        assert st["state"] == "running" and st["turn"] == "white"
        assert st["black"] == {"main_ms": 1, "flagged": False}
        # White presses exactly at its flag: the deadline comes first (as the rules say).
        fw.wait(10000 - 60)
        fw.keys("!down right\n")
        fw.wait(30)
        st = status(fw)
        assert st["state"] == "ended" and st["white"]["flagged"]
    finally:
        fw.stop()


def test_arbiter_key_pauses_at_its_edge_and_tap_resumes(tmp_path):
    fw = boot(tmp_path)
    try:
        set_tc(fw, SUDDEN_10S)
        fw.keys("l")
        fw.wait(2000)
        out = tap(fw, "arbiter", hold_ms=300)
        st = status(fw)
        assert st["state"] == "paused" and st["black"]["main_ms"] == 8000
        assert "暂停" in said(out)
        fw.wait(5000)
        assert status(fw)["black"]["main_ms"] == 8000
        out = tap(fw, "arbiter")
        assert status(fw)["state"] == "running" and "继续" in said(out)
        fw.wait(1000)
        assert status(fw)["black"]["main_ms"] == 8000 - 1020  # resumed at the release
    finally:
        fw.stop()


def test_reset_gesture_and_preset_menu_by_voice(tmp_path):
    fw = boot(tmp_path)
    try:
        presets = fw.request({"cmd": "presets.get"})["presets"]
        fw.keys("l")
        fw.wait(3000)
        tap(fw, "arbiter")  # pause
        # Arbiter key held + White's button: back to the configured time control; the game
        # in progress ends only once the arbiter confirms with White's button.
        fw.keys("!down arbiter\n")
        fw.wait(100)
        out = tap(fw, "right")
        fw.keys("!up arbiter\n")
        out += fw.wait(50)
        assert said(out) == ["再按确认"] and status(fw)["state"] == "paused"  # press again
        tap(fw, "right")
        st = status(fw)
        assert st["state"] == "idle" and st["black"]["main_ms"] == 6900000
        # Arbiter key held + Black's button: the preset menu, each preset said by voice.
        fw.keys("!down arbiter\n")
        fw.wait(100)
        out = tap(fw, "left")
        fw.keys("!up arbiter\n")
        out += fw.wait(50)
        out += tap(fw, "left")
        out += tap(fw, "left")
        assert said(out) == ["预设1", "预设2", "预设3"]
        out = tap(fw, "right")  # choose preset 3
        st = status(fw)
        assert st["state"] == "idle" and st["time_control"] == presets[2]["time_control"]
        assert st["black"]["main_ms"] == presets[2]["time_control"]["main"] * 1000
    finally:
        fw.stop()


def test_timeout_as_pass_ruling_with_a_held_arbiter_key(tmp_path):
    fw = boot(tmp_path)
    try:
        set_tc(fw, {"type": "byoyomi", "main": 1, "periods": 1, "period": 10})
        fw.keys("l")
        out = fw.wait(12000)
        assert said(out)[-2:] == ["10", "超时判负"]
        st = status(fw)
        assert st["state"] == "ended" and st["black"]["flagged"]
        tap(fw, "arbiter")  # a tap does not rule anything
        assert status(fw)["state"] == "ended"
        fw.keys("!down arbiter\n")
        out = fw.wait(2100)
        fw.keys("!up arbiter\n")
        fw.wait(10)
        st = status(fw)
        assert st["state"] == "running" and st["turn"] == "white"
        assert st["black"]["periods"] == 1 and not st["black"]["flagged"]
        assert "超时改判虚着" in said(out)
        kinds = [r["event"] for r in verify_bytes(log_bytes(tmp_path, st["game"]))["records"]]
        assert "ruling" in kinds and "timeout" in kinds
    finally:
        fw.stop()


def test_config_survives_a_restart_and_a_killed_game_resumes_paused(tmp_path):
    fw = boot(tmp_path)
    try:
        r = fw.request({"cmd": "config.set", "config": {"volume": 3, "buttons": {"left": "white"}}})
        assert r["ok"] and r["config"]["volume"] == 3
        fw.keys("a")  # the left button is White's now: it starts the game
        fw.wait(5000)
        fw.keys("l")  # Black's press
        fw.wait(2000)
        before = status(fw)
        assert before["moves"] == 1 and before["turn"] == "white"
    finally:
        fw.kill()  # a power cut: no goodbye
    fw = boot(tmp_path)
    try:
        assert "power_resume" in notices(fw.boot)
        assert fw.request({"cmd": "config.get"})["config"]["volume"] == 3
        st = status(fw)
        assert st["state"] == "paused" and st["game"] == before["game"]
        assert st["black"] == before["black"]  # the press is in the log
        # White's clock ran on after the press; a power cut gives back at most 2 s of it.
        assert 0 <= st["white"]["main_ms"] - before["white"]["main_ms"] <= 2000
        tap(fw, "arbiter")  # the arbiter resumes
        fw.wait(1000)
        fw.keys("a")
        fw.wait(100)
        st = status(fw)
        assert st["moves"] == 2
        check = verify_bytes(log_bytes(tmp_path, st["game"]))
        assert check["ok"]
        assert "power_resume" in [r.get("notice") for r in check["records"]]
    finally:
        fw.stop()


def test_a_game_lost_on_time_stays_lost_after_a_power_cut(tmp_path):
    fw = boot(tmp_path)
    try:
        set_tc(fw, SUDDEN_10S)
        fw.keys("l")
        fw.wait(10500)
        assert status(fw)["state"] == "ended"
    finally:
        fw.kill()
    fw = boot(tmp_path)
    try:
        st = status(fw)
        assert st["state"] == "ended" and st["black"] == {"main_ms": 0, "flagged": True}
    finally:
        fw.stop()


def test_damaged_config_falls_back_to_defaults_and_says_so(tmp_path):
    flash_file(tmp_path, "config.json", b'{"version": 1, "config": {"volume": "loud"')
    fw = boot(tmp_path)
    try:
        assert "config_damaged" in notices(fw.boot)
        assert fw.request({"cmd": "config.get"})["config"]["volume"] == 7
    finally:
        fw.stop()


def _write_battery(path, mv):
    """Replace the battery file in one step: the clock may read it at any moment."""
    tmp = path.with_suffix(".new")
    tmp.write_text(str(mv))
    os.replace(tmp, path)


def test_low_battery_is_said_once_and_logged(tmp_path):
    battery = tmp_path / "battery"
    _write_battery(battery, 3900)
    flash = tmp_path / "flash"
    fw = boot(flash, env={"GOCLOCK_BATTERY": str(battery)})
    try:
        fw.keys("l")
        out = fw.wait(30000)
        assert "battery_low" not in notices(out)
        battery.write_text("")  # a read that catches the file mid-write: not "no battery"
        out = fw.wait(20000)
        assert "battery_low" not in notices(out)
        assert fw.request({"cmd": "info"})["battery_mv"] == 3900
        _write_battery(battery, 3400)
        out = fw.wait(60000)
        assert notices(out).count("battery_low") == 1 and "电量低" in said(out)
        out = fw.wait(120000)
        assert "battery_low" not in notices(out)
        st = status(fw)
        assert fw.request({"cmd": "info"})["battery_mv"] == 3400
        recs = verify_bytes(log_bytes(flash, st["game"]))["records"]
        assert [r.get("notice") for r in recs].count("battery_low") == 1
    finally:
        fw.stop()


def test_ctrl_c_on_the_line_never_stops_a_game(tmp_path):
    fw = boot(tmp_path)
    try:
        assert {"kbd_intr": 3} in fw.boot  # idle: mpremote may break in
        set_tc(fw, SUDDEN_10S)
        fw.keys("l")
        out = fw.wait(1000)
        assert {"kbd_intr": -1} in out  # a game: Ctrl-C is just a byte
        fw.send(b"\x03\x03\x03\r\n")
        fw.send(b"\x03")
        fw.wait(1000)
        st = status(fw)
        assert st["state"] == "running" and st["black"]["main_ms"] == 8000
        r = fw.request({"cmd": "reset"})  # nothing ends a running game: pause first
        assert not r["ok"] and "pause" in r["error"]
        assert fw.request({"cmd": "pause"})["ok"] and fw.request({"cmd": "reset"})["ok"]
        assert {"kbd_intr": 3} in fw.wait(10)
    finally:
        fw.stop()


def test_calls_are_spoken_at_their_deadlines(tmp_path):
    fw = boot(tmp_path)
    try:
        set_tc(fw, {"type": "byoyomi", "main": 5, "periods": 2, "period": 60})
        fw.request({"cmd": "watch", "on": True})
        fw.keys("l")
        out = fw.wait(70000)
        says = [(x["t"], x["say"]) for x in out if "say" in x]
        want = [(5000, "开始读秒"), (35000, "30秒"), (45000, "40秒"), (55000, "50秒")]
        want += [(60000, "55秒"), (63000, "58秒"), (65000, "1分")]
        assert says[:-1] == want
        # Said right after "1分" (a 370 ms clip): one announcement, two clips.
        assert says[-1][1] == "还剩1分" and 65000 + 370 <= says[-1][0] <= 65000 + 390
        want.append(says[-1])
        # The log has each call at its deadline tick.
        game = status(fw)["game"]
        recs = verify_bytes(log_bytes(tmp_path, game))["records"]
        calls = [(r["t"], r["phrase"]) for r in recs if r["event"] == "call"]
        assert calls == want[:-1] + [(65000, "还剩1分")]
    finally:
        fw.stop()


def test_full_flash_never_stops_the_clock(tmp_path):
    """A 64 KB flash: old games are dropped to make room; the clock goes on."""
    fw = boot(tmp_path, env={"GOCLOCK_FLASH_KB": "64"})
    out = []
    try:
        tc = {"type": "fischer", "main": 600, "increment": 5}
        fw.request({"cmd": "config.set", "config": {"time_control": tc}})
        for _ in range(3):
            fw.request({"cmd": "pause"})
            assert fw.request({"cmd": "reset"})["ok"]
            fw.keys("l")
            out += fw.wait(200)
            for move in range(100):
                fw.keys("a" if move % 2 == 0 else "l")
                out += fw.wait(200)
        st = status(fw)
        assert st["state"] == "running" and st["moves"] == 100
        assert st["black"]["main_ms"] == 600000 + 50 * (5000 - 200) - 200  # on move again
        assert "storage" in notices(out)
        games = fw.request({"cmd": "logs.list"})["logs"]
        assert games[-1]["game"] == st["game"] and len(games) < 3  # the oldest went first
        assert fw.request({"cmd": "config.get"})["ok"]
    finally:
        fw.stop()


def test_the_view_shows_both_times_whose_turn_and_pause(tmp_path):
    fw = boot(tmp_path, env={"GOCLOCK_VIEW": "1"})
    try:
        set_tc(fw, {"type": "byoyomi", "main": 0, "periods": 3, "period": 30})
        fw.keys("l")
        out = fw.wait(1500)
        views = [x["view"] for x in out if "view" in x]
        last = views[-1]
        assert last["state"] == "running" and last["turn"] == "black"
        assert last["black"] == "0:29" and last["white"] == "0:30"  # rounded up, as counted down
        assert last["black_sub"] == "byo 3 left"
        assert {"led": 1} in out  # Black's clock runs
        out = tap(fw, "arbiter")
        assert [x["view"]["note"] for x in out if "view" in x][-1] == "PAUSED"
    finally:
        fw.stop()


def test_what_a_host_does_is_said_and_shown_at_the_board(tmp_path):
    """The board says what a host did as the arbiter key would have (暂停, 继续, 重新开局,
    已记迟到, 到场), a paused clock still marks the side to move, and a side marked late is
    shown absent until it arrives (the sim screen draws these views)."""
    fw = boot(tmp_path, env={"GOCLOCK_VIEW": "1"})

    def views(out):
        return [x["view"] for x in out if "view" in x]

    try:
        set_tc(fw, {"type": "byoyomi", "main": 60, "periods": 3, "period": 30})
        assert fw.request({"cmd": "late", "side": "black"})["accepted"]
        out = fw.wait(10)
        assert said(out) == ["已记迟到"] and views(out)[-1]["note"] == "BLACK ABSENT"
        fw.keys("l")  # White's button starts Black's clock; Black is away
        out = fw.wait(3000)
        assert views(out)[-1]["note"] == "BLACK ABSENT" and views(out)[-1]["mark"] == "black"
        r = fw.request({"cmd": "arrive", "side": "black"})
        assert r["accepted"] and r["late_ms"] == 3000 and r["charged_ms"] == 3000
        out = fw.wait(10)
        assert said(out) == ["到场"] and views(out)[-1]["note"] == ""
        assert fw.request({"cmd": "pause"})["state"] == "paused"
        out = fw.wait(10)
        assert said(out) == ["暂停"]
        assert views(out)[-1]["note"] == "PAUSED" and views(out)[-1]["mark"] == "black"
        assert fw.request({"cmd": "resume"})["state"] == "running"
        assert said(fw.wait(10)) == ["继续"]
        fw.request({"cmd": "pause"})
        assert fw.request({"cmd": "reset"})["state"] == "idle"
        out = fw.wait(10)
        assert said(out) == ["暂停", "重新开局"] and views(out)[-1]["note"] == "White starts"
    finally:
        fw.stop()


def test_maintenance_ends_the_game_so_a_host_can_take_the_repl(tmp_path):
    fw = boot(tmp_path)
    try:
        set_tc(fw, SUDDEN_10S)
        fw.keys("l")
        out = fw.wait(1000)
        assert {"kbd_intr": -1} in out  # a game: Ctrl-C is off
        game = status(fw)["game"]
        r = fw.request({"cmd": "maintenance"})
        assert r["ok"] and r["ended"] == game
        out = fw.wait(10)
        assert {"kbd_intr": 3} in out and status(fw)["state"] == "idle"
    finally:
        fw.kill()
    recs = verify_bytes(log_bytes(tmp_path, game))["records"]
    assert recs[-1]["event"] == "end" and recs[-1]["reason"] == "maintenance"
    fw = boot(tmp_path)
    try:
        assert "power_resume" not in notices(fw.boot) and status(fw)["state"] == "idle"
    finally:
        fw.stop()


def test_both_player_buttons_held_at_power_up_skip_the_resume(tmp_path):
    fw = boot(tmp_path)
    try:
        set_tc(fw, SUDDEN_10S)
        fw.keys("l")
        fw.wait(2000)
        game = status(fw)["game"]
    finally:
        fw.kill()  # a game cut off: it would come back paused
    fw = boot(tmp_path, env={"GOCLOCK_HELD": "left,right"})
    try:
        assert "maintenance" in notices(fw.boot) and "power_resume" not in notices(fw.boot)
        assert status(fw)["state"] == "idle" and {"kbd_intr": 3} in fw.boot
    finally:
        fw.kill()
    recs = verify_bytes(log_bytes(tmp_path, game))["records"]
    assert recs[-1]["event"] == "end" and "not resumed" in recs[-1]["reason"]
    fw = boot(tmp_path)  # and the next normal boot does not bring it back either
    try:
        assert "power_resume" not in notices(fw.boot) and status(fw)["state"] == "idle"
    finally:
        fw.stop()
