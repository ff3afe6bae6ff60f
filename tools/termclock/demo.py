"""The scripted demo game of `make sim` when stdin is not a terminal.

A short byo-yomi game (20 s main time, 2 periods of 30 s) in virtual time, so
the whole thing takes a second or two: the script presses the keys of the
desktop board, the events come back over the simulated serial line (the
protocol's `watch`), and each line printed says what the clock did or said
at which moment of the game. At the end the game log is read back over the
line and its checksum chain verified.
"""

import sys
import tempfile

from goclock.ui import status_line  # the host tool's words for a status
from goclockfw.storage.logline import verify_bytes

DEMO_TC = {"type": "byoyomi", "main": 20, "periods": 2, "period": 30}

# (keys for the desktop board, or a virtual wait in ms; what the script does)
SCRIPT = (
    ("l", "White presses: Black's clock starts"),
    (4000, None),
    ("a", "Black moves"),
    (3000, None),
    ("l", "White moves"),
    (40000, None),
    ("a", "Black moves, 24 s into byo-yomi"),
    (2000, None),
    ("l", "White moves"),
    (75000, None),
    ("!down arbiter\n", "the arbiter holds the key down after Black's timeout"),
    (2500, None),
    ("!up arbiter\n", None),
    (3000, None),
    ("l", "White moves"),
    (5000, None),
    ("a", "Black moves"),
    (1000, None),
    (" ", "the arbiter taps the key: pause"),
    (1000, None),
)

WHAT = {
    "start": "{side}'s clock starts",
    "press": "{side} pressed after {used}",
    "byoyomi": "{side} is in byo-yomi",
    "period": "{side} used a period: {left} left",
    "timeout": "{side} is out of time",
    "ruling": "ruling: {side}'s timeout counts as a pass",
    "pause": "both clocks stopped",
    "resume": "the clocks run again",
    "ignored": "{side}'s press ignored: {reason}",
}


def clock(ms):
    return "%d:%02d.%03d" % (ms // 60000, ms // 1000 % 60, ms % 1000)


def describe(ev):
    kind = ev.get("event")
    if kind == "call":
        return 'the clock says "%s"' % ev.get("phrase")
    text = WHAT.get(kind)
    if text is None:
        return None
    used = ev.get("used_ms")
    return text.format(
        side=str(ev.get("side", "")).capitalize(),
        used="%.1f s" % (used / 1000.0) if isinstance(used, int) else "",
        left=ev.get("left"),
        reason=ev.get("reason"),
    )


def run(Firmware, out=sys.stdout):

    with tempfile.TemporaryDirectory() as flash:
        fw = Firmware(flash, virtual=True, env={"GOCLOCK_VIEW": "0"})
        try:
            out.write("goclock sim: no terminal, so a scripted demo game in virtual time\n")
            out.write("serial line of the simulated clock: %s\n" % fw.port)
            fw.wait(0)
            fw.request({"cmd": "config.set", "config": {"time_control": DEMO_TC}})
            fw.request({"cmd": "reset"})
            fw.request({"cmd": "watch", "on": True})
            out.write("time control: 20 s main time, then 2 periods of 30 s (Chinese calls)\n\n")
            for step, note in SCRIPT:
                if note:
                    out.write("           > %s\n" % note)
                if isinstance(step, int):
                    fw.wait(step)
                    for ev in fw.serial_lines(0.05):
                        text = describe(ev) if isinstance(ev, dict) else None
                        if text:
                            out.write("%s  %s\n" % (clock(ev.get("t", 0)), text))
                else:
                    fw.keys(step)
            st = fw.request({"cmd": "status"})
            out.write("\nnow %s\n" % status_line(st))
            data = fw.read_log(st["game"])
            check = verify_bytes(data)
            out.write(
                "game log %s: %d records, checksum chain %s\n"
                % (st["game"], len(check["records"]), "intact" if check["ok"] else "BROKEN")
            )
            out.write("In a terminal, `make sim` shows the clocks and takes your keys.\n")
            return 0 if check["ok"] else 1
        finally:
            fw.stop()
