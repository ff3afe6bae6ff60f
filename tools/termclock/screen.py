"""The terminal face of `make sim`: both clocks large, the keys, what the clock says.

Reads the desktop board's console lines ({"view"}, {"say"}, {"play"},
{"notice"}, {"buttons"}, {"led"}) and draws them with rich; sends the keys
typed (cbreak mode: one key at a time, no Enter) to the firmware.

What the clock said and its notices belong to one game: when a new game is set up (the
view turns idle after a game), those of the game before are cleared — the power-loss
notice of a resumed game does not stay for the games after it — keeping only what was
said with the reset itself. In the preset menu, the preset's time control is shown
beside its name (the view's "detail", written by the firmware: app/tctext.py).
"""

import collections
import os
import sys
import termios
import tty

from rich.console import Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

# Digits three cells wide, five high: the times read from across a table.
FONT = {
    "0": ("███", "█ █", "█ █", "█ █", "███"),
    "1": ("  █", "  █", "  █", "  █", "  █"),
    "2": ("███", "  █", "███", "█  ", "███"),
    "3": ("███", "  █", "███", "  █", "███"),
    "4": ("█ █", "█ █", "███", "  █", "  █"),
    "5": ("███", "█  ", "███", "  █", "███"),
    "6": ("███", "█  ", "███", "█ █", "███"),
    "7": ("███", "  █", "  █", "  █", "  █"),
    "8": ("███", "█ █", "███", "█ █", "███"),
    "9": ("███", "█ █", "███", "  █", "███"),
    ":": (" ", "▪", " ", "▪", " "),
}


def big(text):
    rows = []
    for r in range(5):
        rows.append(" ".join(FONT.get(ch, ("   ",) * 5)[r] for ch in text))
    return "\n".join(rows)


class Screen:
    def __init__(self, port):
        self.port = port
        self.view = None
        self.left = "black"
        self.led = 0
        self.said = collections.deque(maxlen=6)
        self.notices = collections.deque(maxlen=3)
        self._fresh = [0, 0]  # said lines and notices since the last view line

    def _new_view(self, view):
        was = (self.view or {}).get("state")
        if was not in (None, "idle") and view.get("state") == "idle":
            # A new game: what was said and noticed in the last one goes, except what came
            # with the reset itself (after the last view of the old game).
            for items, fresh in ((self.said, self._fresh[0]), (self.notices, self._fresh[1])):
                keep = list(items)[:fresh]  # newest first, as appendleft keeps them
                items.clear()
                items.extend(keep)
        self.view = view
        self._fresh = [0, 0]

    def take(self, line, speaker):
        if not isinstance(line, dict):
            return
        if "view" in line:
            self._new_view(line["view"])
        elif "say" in line:
            t = line.get("t", 0)
            self.said.appendleft("%d:%02d  %s" % (t // 60000, t // 1000 % 60, line["say"]))
            self._fresh[0] += 1
        elif "play" in line:
            speaker.play(line["play"])
        elif "stop" in line:
            speaker.stop()
        elif "notice" in line:
            self.notices.appendleft(line.get("message", line["notice"]))
            self._fresh[1] += 1
        elif "buttons" in line:
            self.left = line["buttons"].get("left", "black")
        elif "led" in line:
            self.led = line["led"]

    def side_panel(self, side):
        v = self.view or {}
        to_move = v.get("mark") == side  # its clock runs, or runs on resume (app/display.py)
        running = to_move and v.get("state") == "running"
        flag = (v.get("note") or "").startswith(side.upper() + " FLAG")
        style = "bold red" if flag else ("bold green" if running else "white")
        body = Text(big(v.get(side, "--:--")), style=style)
        body.append("\n" + (v.get(side + "_sub") or ""), style="cyan")
        title = side.capitalize() + ("  ◀ to move" if to_move else "")
        return Panel(body, title=title, border_style=style, width=36)

    def render(self, speaker):
        v = self.view or {}
        clocks = Table.grid(padding=(0, 2))
        right = "white" if self.left == "black" else "black"
        clocks.add_row(self.side_panel(self.left), self.side_panel(right))
        state = Text((v.get("note") or v.get("state") or "starting").upper(), style="bold yellow")
        if v.get("detail"):  # the preset menu: the time control of the preset on offer
            state.append("   " + v["detail"], style="bold cyan")
        keys = Text(
            "keys: [a] left button (%s's)   [l] right button (%s's)   "
            "[space] arbiter key   [h] hold/let go the arbiter key   [q] quit"
            % (self.left.capitalize(), right.capitalize()),
            style="dim",
        )
        said = Text("the clock said:  " + ("   |   ".join(self.said) or "-"))
        audio = "sound: %s" % (speaker.command[0] if speaker.command else "none found (printed)")
        lines = [
            Text("serial line: %s   (export GOCLOCK_PORT=%s)" % (self.port, self.port)),
            clocks,
            state,
            said,
            keys,
            Text(audio + "   LED " + ("on" if self.led else "off"), style="dim"),
        ]
        for n in self.notices:
            lines.append(Text("notice: " + n, style="magenta"))
        return Group(*lines)


def run(fw, speaker, threading, port=None):
    """The terminal clock until "q"; `port` the serial line's stable name (port.py)."""
    port = port or fw.port
    screen = Screen(port)
    print(
        "goclock sim: serial line %s (now %s): export GOCLOCK_PORT=%s, then goclock status"
        % (port, fw.port, port)
    )
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    stop = threading.Event()

    def read_keys():
        while not stop.is_set():
            try:
                ch = os.read(fd, 1)
            except OSError:
                break
            if not ch or ch in (b"q", b"Q"):
                break
            fw.keys(ch.decode("latin-1"))
        stop.set()

    tty.setcbreak(fd)
    try:
        threading.Thread(target=read_keys, daemon=True).start()
        with Live(screen.render(speaker), refresh_per_second=10, transient=False) as live:
            while not stop.is_set() and fw.proc.poll() is None:
                lines = fw.lines(0.1)
                for line in lines:
                    screen.take(line, speaker)
                if lines:
                    live.update(screen.render(speaker))
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        speaker.stop()
        fw.stop()
    print("the flash directory is kept: the next `make sim` goes on from there")
    return 0
