"""The announcer, the battery watch and the display view, each on its own (CPython)."""

import os

from conftest import REPO
from goclockfw.app.announcer import STALE_MS, Announcer
from goclockfw.app.battery import LOW_READINGS, REARM_MV, BatteryWatch
from goclockfw.app.display import view
from goclockfw.audio import beep
from goclockfw.timetext import left_text as clock_text
from support.mpy import run_mpy_json

SOUNDS = os.path.join(REPO, "sounds")


class FakePlayer:
    """Plays for `length` ms of a clock the test moves; records what it was asked."""

    def __init__(self, clips=True, length=300):
        self.now = 0
        self.clips = clips
        self.length = length
        self.error = None  # what a real player says when it refuses or stops a clip
        self.played = []
        self.stops = 0
        self._until = None

    def busy(self):
        return self._until is not None and self.now < self._until

    def stop(self):
        self.stops += 1
        self._until = None

    def play(self, what):
        if isinstance(what, str) and not self.clips:
            return False
        self.played.append((self.now, what))
        self._until = self.now + self.length
        return True

    def set_volume(self, v):
        pass


def names(player):
    return [os.path.basename(w) if isinstance(w, str) else "beep" for _, w in player.played]


def test_calls_play_their_clips_and_the_newer_call_wins():
    p = FakePlayer(length=5000)  # a clip longer than the gap to the next call
    a = Announcer(p)
    assert a.load_pack(SOUNDS, "zh") is None
    a.say("30秒", 0, 30000, 30003)
    p.now = 3000  # the 30 s clip still playing
    a.say("40秒", 0, 40000, 40001)
    assert names(p) == ["sec_30.wav", "sec_40.wav"]
    assert p.stops >= 1  # the 30 s call was cut
    assert a.worst_late_ms == 3


def test_calls_of_one_tick_play_back_to_back():
    p = FakePlayer(length=400)
    a = Announcer(p)
    a.load_pack(SOUNDS, "zh")
    a.say("1分", 0, 60000, 60000)
    a.say("还剩4分", 0, 60000, 60000)
    assert names(p) == ["min_1.wav"]
    p.now = 200
    a.pump(60200)
    assert names(p) == ["min_1.wav"]  # still speaking "1分"
    p.now = 400
    a.pump(60400)
    assert names(p) == ["min_1.wav", "left_min_4.wav"]


def test_stale_call_is_not_spoken_and_a_press_cuts_the_mover_s_calls():
    p = FakePlayer()
    a = Announcer(p)
    a.load_pack(SOUNDS, "zh")
    a.say("50秒", 1, 0, STALE_MS + 1)
    assert p.played == [] and a.skipped == 1
    a.say("55秒", 1, 5000, 5000)
    a.cancel_side(0)
    assert p.stops == 0
    a.cancel_side(1)
    assert p.stops == 1


def test_no_clip_or_a_buzzer_gets_the_beep_pattern():
    p = FakePlayer(clips=False)
    a = Announcer(p)
    a.load_pack(SOUNDS, "zh")
    a.say("30秒", 0, 0, 0)
    assert p.played[-1][1] == beep.pattern("30秒")
    # A notice beeps its own pattern, not a blip for the pack's words ("暂停", "预设3").
    a.notice("pause")
    assert p.played[-1][1] == beep.pattern("pause") != beep.pattern("暂停")
    a.notice("preset_3")
    assert p.played[-1][1] == beep.pattern("preset_3") != beep.pattern("预设3")


def test_notice_uses_the_pack_s_device_phrase():
    p = FakePlayer()
    a = Announcer(p)
    a.load_pack(SOUNDS, "zh")
    a.notice("pause")
    a.notice("preset_3")
    assert names(p) == ["pause.wav", "preset_3.wav"]


def test_missing_pack_is_reported_and_beeps_instead(tmp_path):
    p = FakePlayer()
    a = Announcer(p)
    warning = a.load_pack(str(tmp_path), "zh")
    assert "voice pack zh unusable" in warning
    a.say("10", 0, 0, 0)
    assert p.played[-1][1] == beep.pattern("10")


def test_battery_warns_once_after_consecutive_low_readings():
    w = BatteryWatch(3500, check_ms=1000)
    t = 0
    said = []
    for mv in [3600, 3450, 3600, 3450, 3440, 3430, 3420, 3400, 3300]:
        assert w.due(t)
        said.append(w.check(mv, t))
        t += 1000
    assert said.count(True) == 1
    assert said.index(True) == 3 + LOW_READINGS - 1
    # A fresh battery re-arms the warning.
    w.check(3500 + REARM_MV, t)
    for _ in range(LOW_READINGS):
        t += 1000
        last = w.check(3400, t)
    assert last is True


def test_battery_not_wired_or_disabled():
    w = BatteryWatch(3500)
    assert not any(w.check(None, t) for t in range(0, 100000, 10000))
    w = BatteryWatch(0)
    assert not any(w.check(1000, t) for t in range(0, 100000, 10000))


def test_clock_text_rounds_up():
    assert clock_text(0) == "0:00"
    assert clock_text(1) == "0:01"
    assert clock_text(59001) == "1:00"
    assert clock_text(6900000) == "1:55:00"


def status(state="running", turn="black", black=None, white=None):
    return {
        "state": state,
        "turn": turn,
        "black": black or {"main_ms": 60000, "flagged": False, "periods": 5, "period_ms": 60000},
        "white": white or {"main_ms": 0, "flagged": False, "periods": 3, "period_ms": 41200},
    }


def test_view_shows_byoyomi_moves_and_flags():
    v = view(status())
    assert v["black"] == "1:00" and v["black_sub"] == "5x60s"
    assert v["white"] == "0:42" and "3" in v["white_sub"]
    v = view(status(black={"main_ms": 0, "flagged": False, "moves": 4, "period_ms": 61000}))
    assert v["black"] == "1:01" and "4 moves" in v["black_sub"]
    v = view(status(state="ended", black={"main_ms": 0, "flagged": True}))
    assert v["note"] == "BLACK FLAG"
    assert view(status(state="paused"))["note"] == "PAUSED"
    assert view(status(state="idle"))["note"] == "White starts"
    handicap = dict(status(state="idle"), time_control={"type": "sudden_death", "first": "white"})
    assert view(handicap)["note"] == "Black starts"  # Black's button starts White's clock
    assert view(status(), menu="2 1h + 3x30s")["note"].startswith("preset 2")


def test_view_marks_the_side_to_move_also_while_paused():
    assert view(status())["mark"] == "black"
    assert view(status(state="paused", turn="white"))["mark"] == "white"  # runs on resume
    assert view(status(state="idle", turn=None))["mark"] is None
    assert view(status(state="ended", black={"main_ms": 0, "flagged": True}))["mark"] is None


def test_view_shows_a_side_marked_late_as_absent_until_it_arrives():
    absent = {"main_ms": 60000, "flagged": False, "periods": 5, "period_ms": 60000, "absent": True}
    # Black marked late before the start: absent, not "White starts".
    assert view(status(state="idle", turn=None, black=absent))["note"] == "BLACK ABSENT"
    assert view(status(black=absent))["note"] == "BLACK ABSENT"  # its clock runs meanwhile
    assert view(status(white=dict(absent, main_ms=30000)))["note"] == "WHITE ABSENT"
    assert view(status(black=absent, white=absent))["note"] == "BOTH ABSENT"
    assert view(status(state="paused", black=absent))["note"] == "PAUSED"  # the clocks stopped
    lost = dict(absent, main_ms=0, flagged=True)
    assert view(status(state="ended", black=lost))["note"] == "BLACK FLAG"


SCREEN = """
import framebuf, json
from goclockfw.app.display import view
from goclockfw.app.screen import Screen


class Ssd1306(framebuf.FrameBuffer):
    # The micropython-lib driver's shape: a MONO_VLSB frame buffer, commands and data.
    def __init__(self):
        self.buffer = bytearray(1024)
        super().__init__(self.buffer, 128, 64, framebuf.MONO_VLSB)
        self.sent = []  # pages sent, in order
        self.cmds = []
        self.data = bytearray()  # the pieces of the page being sent

    def write_cmd(self, c):
        self.cmds.append(c)
        self.data = bytearray()

    def write_data(self, data):
        assert len(data) <= 64  # a page goes in pieces: one I2C write of 66 bytes at most
        self.data.extend(data)
        if len(self.data) == 128:
            page = self.cmds[-2]  # the page of the SET_PAGE_ADDR just given
            assert self.data == self.buffer[page * 128 : page * 128 + 128]
            self.sent.append(page)


def status(state, black, white, turn="black"):
    side = lambda ms: {"main_ms": ms, "flagged": False, "periods": 5, "period_ms": 60000}
    return {"state": state, "turn": turn, "black": side(black), "white": side(white)}


d = Ssd1306()
s = Screen(d)
out = {}
steps = 0
while s.step():
    steps += 1
out["first"] = [d.sent[:], steps + 1]  # everything, two pages a step
d.sent.clear()
s.update(view(status("running", 6895000, 6900000)))
while s.step():
    pass
out["all_regions"] = sorted(set(d.sent))
d.sent.clear()
s.update(view(status("running", 6894000, 6900000)))  # one second of Black's time changed
while s.step():
    pass
out["one_second"] = d.sent[:]
d.sent.clear()
s.update(view(status("running", 6894000, 6900000)))  # nothing changed
out["nothing"] = s.step(), d.sent[:]
s.update(view(status("paused", 6894000, 6900000)))
while s.step():
    pass
out["paused"] = d.sent[:]
# the big digits land where they should: row 8 of the buffer holds black's time
lit = sum(1 for x in range(128) if d.pixel(x, 12))
out["lit"] = lit
d.sent.clear()
fast = {"type": "byoyomi", "main": 1800, "periods": 3, "period": 30}
s.update(view(status("idle", 6894000, 6900000), menu="3 fast", menu_tc=fast))
while s.step():
    pass
out["menu"] = d.sent[:], view(status("idle", 0, 0), menu="3 fast", menu_tc=fast)["detail"]
out["menu_lit"] = sum(1 for x in range(128) for y in range(48, 56) if d.pixel(x, y))
s.update(view(status("idle", 6894000, 6900000)))  # the menu left: its line goes
while s.step():
    pass
out["menu_left"] = sum(1 for x in range(128) for y in range(48, 56) if d.pixel(x, y))
print(json.dumps(out))
"""


def test_screen_sends_only_changed_pages_a_few_at_a_time(micropython, tmp_path):
    out = run_mpy_json(micropython, tmp_path, SCREEN)[-1]
    assert out["first"] == [[0, 1, 2, 3, 4, 5, 6, 7], 4]  # the whole screen, 2 pages a step
    assert out["all_regions"] == [0, 1, 2, 3, 4, 5, 6, 7]
    assert out["one_second"] == [1, 2]  # Black's time only: its two pages
    assert out["nothing"] == [False, []]
    # Paused: the marker stays on Black's line (Black's clock runs on resume), the note says
    # PAUSED: only the note's page changes.
    assert out["paused"] == [7]
    assert out["lit"] > 10
    # The preset menu: its time control on page 6 (under the note "preset 3 fast"), gone
    # with the menu. (Page 0 too: the clock is idle now, so Black's line loses the marker
    # it kept while paused.)
    assert out["menu"] == [[0, 6, 7], "byo 30m+3x30s"]  # the marker, the detail, the note
    assert out["menu_lit"] > 40 and out["menu_left"] == 0
