"""The new controls in the whole firmware (the app on the desktop board, MicroPython unix port,
virtual time): what is said, what the status and the log say."""

from goclockfw.storage.logline import verify_bytes
from support.firmware import boot, log_bytes, said, set_tc, status


def test_ing_penalties_are_said_logged_and_shown(tmp_path):
    fw = boot(tmp_path)
    try:
        set_tc(fw, {"type": "ing", "main": 5, "periods": 2, "period": 20})
        fw.keys("l")  # White's button starts Black's clock
        lines = fw.wait(5500)
        assert "共罚2点" in said(lines)
        st = status(fw)
        assert st["black"]["points"] == 2 and st["black"]["periods"] == 2
        lines = fw.wait(20000)  # the first period runs out: the last one begins
        assert "共罚4点" in said(lines)
        lines = fw.wait(20000)
        assert said(lines)[-2:] == ["10", "超时判负"]
        st = status(fw)
        assert st["state"] == "ended" and st["black"]["flagged"] and st["black"]["points"] == 4
        records = verify_bytes(log_bytes(tmp_path, st["game"]))["records"]
        penalties = [(r["t"], r["points"]) for r in records if r["event"] == "penalty"]
        assert penalties == [(5000, 2), (25000, 4)]
    finally:
        fw.stop()


def test_untimed_and_hourglass_status(tmp_path):
    fw = boot(tmp_path)
    try:
        set_tc(fw, {"type": "untimed"})
        fw.keys("l")
        fw.wait(3000)
        fw.keys("a")  # Black ends its move
        fw.wait(1000)
        st = status(fw)
        assert st["state"] == "running" and st["turn"] == "white"
        assert 3000 <= st["black"]["spent_ms"] <= 3100 and st["black"]["main_ms"] == 0
        fw.request({"cmd": "pause"})
        set_tc(fw, {"type": "hourglass", "main": 60})
        fw.keys("l")
        fw.wait(10000)
        st = status(fw)
        assert st["black"]["main_ms"] + st["white"]["main_ms"] == 120000
        assert st["black"]["main_ms"] <= 50000
    finally:
        fw.stop()
