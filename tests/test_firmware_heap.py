"""The hot paths allocate nothing: proved under micropython.heap_lock() (tools/bench/heap.py).

With the heap locked any allocation raises MemoryError. The firmware's loop
runs 5 s of a running clock that way (progress marks written to the flash), 5 s
of a paused one, 5 s of an idle one whose next game's chunks are made, and 40
presses are charged that way (interrupt record, debounce, the core's press): all
must go through. The other numbers of the bench (heap after boot, per second,
per press) are reported by `make bench`, not asserted here.

The one thing that does allocate between games is the preparation of the next game's
erased chunks (each a file created through littlefs): under the lock each of its steps
fails, and the upkeep must back off (1 s, then 2 s, ...) instead of failing every pass.
"""

import json

from tools.bench import heap as bench_heap


def run_script(micropython, tmp_path, name, text):
    """`text` run as a script under the MicroPython unix port: its last line's JSON."""
    from conftest import run_micropython

    script = tmp_path / name
    script.write_text(text)
    proc = run_micropython(micropython, str(script), cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


def test_tick_and_press_paths_allocate_nothing():
    m = bench_heap.measure()
    assert m["tick_locked"] == 0
    assert m["press_locked"] == 0
    # The game started right after boot, its chunks not all made: its pause makes none
    # (storage/journal.py _target), and its passes allocate nothing.
    at_pause, after, wanted = m["paused_spares"]
    assert 2 <= at_pause < wanted and after == at_pause, m["paused_spares"]
    assert m["paused_locked"] == 0
    # The next game's preparation under the lock: a step at 0, 1 s and 3 s, no more.
    errors, passes, failures = m["setup_locked"]
    assert 1 <= errors <= 3 and passes > 50 and failures == errors, m["setup_locked"]
    # Unlocked, the preparation ends (all made), and an idle pass allocates nothing.
    assert m["idle_spares"] == [wanted, wanted, False], m["idle_spares"]
    assert m["idle_locked"] == 0
    assert m["charged_moves"] == 44  # 4 warm-up presses and the 40 under the lock
    assert m["moves"] == 22  # the presses the bench played through the whole app
    assert 0 < m["boot"] and 0 < m["per_press"]


# What a running clock does not hold (goclockfw/modules.py): the boot's own modules and
# those of the rare commands are let go after them, and come back when used again. Run
# under the MicroPython unix port, where `release` acts (CPython keeps its modules).
RELEASE = r"""
import gc
import json
import sys

from support.sessions import make_session, reboot
from goclockfw import modules

WATCHED = modules.BOOT + modules.CONFIG + ("goclockfw.storage.identity",)


def held():
    return sorted(m for m in WATCHED if m in sys.modules)


def heap():
    gc.collect()
    return gc.mem_alloc()


out = {}
s = make_session()
s.protocol.handle_line('{"id":1,"cmd":"press","side":"white"}')  # a game: the reboot resumes it
s.step(1000)
s = reboot(s, 1000)  # the log replayed: app/replay.py and the checks imported, then let go
out["boot"] = held()
out["resumed"] = s.clock.state
p = s.protocol
replies = []
for line in (
    '{"id":2,"cmd":"info"}',
    '{"id":3,"cmd":"config.get"}',
    '{"id":4,"cmd":"config.set","config":{"volume":3}}',
    '{"id":5,"cmd":"config.set","config":{"volume":"loud"}}',
    '{"id":6,"cmd":"presets.set","presets":[{"name":"x","time_control":{"type":"untimed"}}]}',
    '{"id":7,"cmd":"assign","round":2}',
    '{"id":8,"cmd":"time.set","side":"black","main":60}',
):
    replies.append(json.loads(p.handle_line(line)))
    out.setdefault("after", []).append(held())
out["ok"] = [r["ok"] for r in replies]
out["volume"] = s.store.config["volume"]
out["round"] = s.store.config["game_info"]["round"]
out["black"] = s.commands.status()["black"]["main_ms"]
out["error"] = replies[3]["error"]
# The heap the config's modules take while imported, and what their release leaves of it.
a = heap()
import goclockfw.protocol.shapes
import goclockfw.storage.configcheck

b = heap()
modules.release(modules.CONFIG)
out["held"] = b - a
out["left"] = heap() - a
print(json.dumps(out))
"""


def test_the_boot_and_the_rare_commands_let_their_modules_go(micropython, tmp_path):
    out = run_script(micropython, tmp_path, "release.py", RELEASE)
    assert out["resumed"] == "paused"  # the replay ran, then its module went
    assert out["boot"] == []
    assert out["after"] == [[]] * 7  # each command imported what it needed and let it go
    assert out["ok"] == [True, True, True, False, True, True, True]
    assert out["error"] == "volume: must be a number, not a string"  # shapes.py, imported
    assert out["volume"] == 3 and out["round"] == 2 and out["black"] == 60000
    # Imported, the config's checks hold their code (compiled from source here, 11.6 KB);
    # released, all of it is collected but a slot or two of the tables that named them.
    assert out["held"] > 8192 and out["left"] < 256, out


# A clock that has played many games: what `logs.list` leaves in the heap. Each finished
# game's listing is kept (its size and records), not its whole scan; the game read last
# keeps its scan for the pull (logs.get a piece at a time).
GAMES = r"""
import gc
import json

from support.sessions import make_session

s = make_session(blocks=160)
p = s.protocol
now = 0


def run(ms):
    global now
    for _ in range(ms // 50):
        now += 50
        s.step(now)


def heap():
    gc.collect()
    return gc.mem_alloc()


for g in range(GAMES):
    # (the usual press line, read in one viper call on this port: jsontext.press_line)
    r = json.loads(p.handle_line('{"id":1,"cmd":"press","side":"white"}'))
    assert r == {"accepted": True, "id": 1, "ok": True}, r
    run(200)
    r = json.loads(p.handle_line('{"id": 2, "cmd": "press", "side": "black"}'))
    assert r == {"accepted": True, "id": 2, "ok": True}, r
    run(200)
    p.handle_line('{"id":3,"cmd":"pause"}')
    p.handle_line('{"id":4,"cmd":"reset"}')
    run(3000)  # quiet: the next game's chunks made ready
p.handle_line('{"id":5,"cmd":"status"}')
a = heap()
listed = json.loads(p.handle_line('{"id":6,"cmd":"logs.list"}'))["logs"]
first = listed[0]
data = b""
while True:
    r = json.loads(p.handle_line(
        '{"id":8,"cmd":"logs.get","game":%d,"offset":%d,"length":200}' % (first["game"], len(data))))
    data += __import__("binascii").a2b_base64(r["data"])
    if r["eof"]:
        break
again = json.loads(p.handle_line('{"id":9,"cmd":"logs.list"}'))["logs"]
out = {"games": len(listed), "size": first["size"], "got": len(data), "same": again == listed}
listed = again = first = data = r = None  # this script's own copies
for _ in range(2):  # a listing's objects stay until the next replies replace them
    p.handle_line('{"id":10,"cmd":"status"}')
out["held"] = heap() - a
print(json.dumps(out))
"""


def test_a_logs_list_keeps_little_of_each_game(micropython, tmp_path):

    out = {}
    for games in (10, 40):
        text = GAMES.replace("GAMES", str(games), 1)
        out[games] = r = run_script(micropython, tmp_path, "games%d.py" % games, text)
        assert r["games"] == games and r["same"]
        assert r["got"] == r["size"] > 0  # the first game pulled whole
    # What each game adds to the heap a listing leaves: its (size, records) and a slot of
    # the table, 83 B on this 64-bit port (about half on a Pico); each game's whole scan
    # was kept before, 371 B a game here.
    per_game = (out[40]["held"] - out[10]["held"]) / 30
    assert per_game < 150, (per_game, out)


# A game's first presses and deadlines: their event lines and records are rendered from
# templates the reset made (events.py `prepare`), so the first press, call, byo-yomi and
# period of each side allocate nothing for them (and take no template's time: ~2.5 ms
# each on an RP2040). The journal's writer renders under heap_lock; a writer that was not
# prepared is the control (it must allocate its templates, or this check could not fail).
FIRST_PRESSES = r"""
import json

import micropython

from support.sessions import make_session
from goclockfw.events import EventWriter

s = make_session()
s.commands.set_config(dict(s.store.config, time_control={"type": "byoyomi", "main": 60, "periods": 3, "period": 30}))
s.commands.reset()
clock = s.clock
EVENTS = (("start", 0, None), ("press", 0, 1000), ("press", 1, 500))
EVENTS += (("byoyomi", 0, None), ("period", 1, 2))


def render(w, tick):
    out = []
    for kind, side, value in EVENTS:
        failed = False
        micropython.heap_lock()
        try:
            w.clock_event(clock, kind, side, tick, tick, value)
        except MemoryError:
            failed = True
        micropython.heap_unlock()
        out.append(kind + str(side) if failed else bytes(w.buf[: w.n]).decode())
    return out


out = {"prepared": render(s.journal.lines, s.now), "control": render(EventWriter(), s.now)}
# The game's first call: its phrase's JSON is made with its clip, at a quiet moment
# before it (Session.step's preparation), the call's template at the reset.
s.commands.press(1, 0)
t = 0
while not s.calls_ready() and t < 5000:
    t += 10
    s.step(t)
    s.changed = False  # (shown: the board's loop clears it after each pass)
EVENTS = (("call", 0, s.clock.next_phrase()),)
out["call"] = render(s.journal.lines, t) + render(EventWriter(), t)
print(json.dumps(out))
"""


def test_a_game_s_first_presses_render_from_templates_the_reset_made(micropython, tmp_path):
    out = run_script(micropython, tmp_path, "first.py", FIRST_PRESSES)
    assert out["control"] == ["start0", "press0", "press1", "byoyomi0", "period1"]  # unprepared
    start, black, white, byo, period = (json.loads(x) for x in out["prepared"])
    assert start["event"] == "start" and black["event"] == white["event"] == "press"
    assert black["side"] == "black" and black["used_ms"] == 1000
    assert white["side"] == "white" and white["used_ms"] == 500
    assert byo["event"] == "byoyomi" and period["event"] == "period" and period["left"] == 2
    call, control = out["call"]
    assert control == "call0"
    call = json.loads(call)
    assert call["event"] == "call" and call["side"] == "black" and call["phrase"] == "开始读秒"
