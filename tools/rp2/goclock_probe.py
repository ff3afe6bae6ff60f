"""The goclock test probe: on the emulated Pico as /goclock_probe.mpy, never deployed.

probe_boot.py (the Pico's /boot.py in test layouts) imports it. MicroPython runs /boot.py,
then /main.py, in one interpreter, so what this patches in the firmware's classes is what
main.py's loop then uses. It adds one serial command, `probe`, answering with the heap
after a gc.collect() (the real gc.mem_free() of the running firmware) and with what the
previous request cost on the chip: `last_us`, emulated microseconds (time.ticks_us) from
HostLine.feed taking the request's bytes to the moment the loop has handed the last byte
of its reply (and of any event it produced) to the USB serial (Loop._send); `last_cpu_us`,
the same without the loop's sleeps in between (a reply or events longer than a USB
packet go out over several passes, the loop sleeping a few ms between them); and
`last_passes`, the loop passes
that span takes (the one that read the request included); `last_alloc`, gc.mem_alloc() growth over the same span (valid while no collection falls
inside: the probe collects right before, so only a request allocating more than the free
heap would; a negative value says it did).

`gc_us` is how long the probe's own gc.collect() took: a full collection with the
firmware's heap as it is.

`max_send_us` is the longest Loop._send (the loop's write to the USB serial: blocked
while it waits for room) since the reply to the probe before.

`max_step_us` is the longest Session.step (a pass's own work: deadlines fired, calls
started, records written; not the loop's sleep) since the reply to the probe before;
after `{"cmd": "probe", "step_alloc": true}` every step's allocation is measured too
(gc.mem_alloc() around it, outside its time: slow) and `max_step_alloc` is the longest
one's.

Loop passes, whole (`Loop._step`: inputs, serial, the session's step, the send, the
display, the sleep): `{"cmd": "probe", "lock_ms": N}` runs every pass that starts in the N ms
after the reply is out under `micropython.heap_lock()` (an allocation raises MemoryError, which
is counted, then goes on to the loop as it would); `{"cmd": "probe", "alloc_ms": N}`
collects the heap once the reply is out and reads `gc.mem_alloc()` again at the first
pass after N ms: every byte the passes allocated meanwhile, those a heap lock cannot
see too (MicroPython takes a large call frame from the heap when it can and from the C
stack when the heap is locked). The next probe reply carries `window`: {"mode",
"passes", "errors", "alloc", "ms", "work_us", "max_work_us"} of the last window that
ended (work: the passes' own time, their sleep in the board's `wait` left out) (nothing may be sent
to the chip during one: a request's parse allocates), and `lock_trace`, where the last
MemoryError of a locked pass was raised.

Its own cost, a few small functions and a list, is `probe_bytes`: the heap its import
takes, measured by probe_boot.py (the firmware modules it patches are imported before).

Sections: `{"cmd": "probe", "time": ["goclockfw.storage.journal:Journal.record_clock",
...]}` wraps each named function (module:function or module:Class.method) in a timer;
every later probe reply carries `sections`, {name: [calls, us]} accumulated since the
reply to the probe before was sent (inclusive times: a section inside another counts in both). The wrappers
allocate (they take *args), so time a press with them, and its allocation without.

Where code runs: `{"cmd": "probe", "code_at": "goclockfw.jsontext_viper"}` adds `code_at`,
{function name: the address its code starts at} for the module's functions (the
`bytecode` word of MicroPython's function object, the machine code for viper): in flash
from 0x10000000, in RAM from 0x20000000.
"""

import gc
import time

import micropython
import stackpaint

from goclockfw.app import hostline, loop, session
from goclockfw.protocol import commands

# t0 (us), alloc0, last_us, last_alloc, measuring, sections read, longest Session.step (us)
_last = [0, 0, 0, 0, 0, 0, 0, 0, 0]
_feed = hostline.HostLine.feed
_send = loop.Loop._send
_init = commands.Protocol.__init__
_step = session.Session.step


_passes = [0, 0]  # loop passes a request in flight spans: so far, the last request's
_steps = [0, 0]  # 1 while steps' allocation is measured, allocation of the longest step
_sends = [0]  # the longest Loop._send (us): the loop's write to the USB serial
_pass = loop.Loop._step
# A window of loop passes: mode (0 none, 1 lock, 2 alloc), length in ms, state (0 none,
# 1 asked for, 2 running), its start (ms tick), passes, MemoryErrors, gc.mem_alloc() at
# the start. It starts with the first pass after the one that sent the probe's reply, and
# ends at the first pass that starts `ms` or more after that (the loop sleeps up to a
# second at a time: a test waits that much longer, twice).
# the start, then the passes' own work (us, their sleep left out): sum and longest.
_win = [0, 0, 0, 0, 0, 0, 0, 0, 0]
_slept = [0]  # us the loop slept in the board's wait during the window
_wait = [None]  # the board's own wait, once wrapped
_done = {}  # the last window that ended, for the next probe reply
_trace = [None]  # the last MemoryError of a locked pass
# Where a locked pass allocated: a traceback needs room the heap cannot give then.
if hasattr(micropython, "alloc_emergency_exception_buf"):  # the rp2 port's
    micropython.alloc_emergency_exception_buf(256)


def _timed_wait(ms):
    if _win[2] != 2 and not _last[4]:
        return _wait[0](ms)
    t = time.ticks_us()
    _wait[0](ms)
    t = time.ticks_diff(time.ticks_us(), t)
    if _win[2] == 2:
        _slept[0] += t
    if _last[4]:
        _last[7] += t  # a request is in flight: its CPU leaves the loop's sleeps out


def _probe_pass(self):
    if _wait[0] is None:
        _wait[0] = self.board.wait
        self.board.wait = _timed_wait
    if _last[4]:
        _passes[0] += 1
    w = _win
    if w[2] == 0:  # no window, or not asked for yet
        return _pass(self)
    if w[2] == 1:  # the probe's reply went out in the pass before: the window starts
        w[2] = 2
        w[4] = w[5] = w[7] = w[8] = 0
        if w[0] == 2:
            gc.collect()
            w[6] = gc.mem_alloc()
        w[3] = time.ticks_ms()
    elif time.ticks_diff(time.ticks_ms(), w[3]) >= w[1]:
        alloc = gc.mem_alloc() - w[6] if w[0] == 2 else 0  # before _done grows
        _done["mode"] = "lock" if w[0] == 1 else "alloc"
        _done["alloc"] = alloc
        _done["passes"] = w[4]
        _done["errors"] = w[5]
        _done["ms"] = time.ticks_diff(time.ticks_ms(), w[3])
        _done["work_us"] = w[7]
        _done["max_work_us"] = w[8]
        w[0] = w[2] = 0
        return _pass(self)
    w[4] += 1
    _slept[0] = 0
    t = time.ticks_us()
    try:
        if w[0] != 1:
            return _pass(self)
        micropython.heap_lock()
        try:
            return _pass(self)
        except MemoryError as e:
            w[5] += 1
            _trace[0] = e  # its traceback: the emergency buffer's two innermost frames
            raise
        finally:
            micropython.heap_unlock()
    finally:
        t = time.ticks_diff(time.ticks_us(), t) - _slept[0]
        w[7] += t
        if t > w[8]:
            w[8] = t


# What the longest step did (`max_step_what`, read outside its time): records held before
# and after it, 1 when a clip played as it began, deadlines planned and calls said in it,
# 1 when it made the next call ready (its second part) or 2 its first part (found its clip,
# opened it), 1 when it built a call table, 1 when the next
# progress mark moved on (a mark or a record written), 1 when the upkeep looked for work.
_what = [0, 0, 0, 0, 0, 0, 0, 0, 0]


def _probe_step(self, now):
    # The session's part of a loop pass (deadlines fired, calls started, records written),
    # without the loop's sleep: the longest since the probe before is `max_step_us`.
    a = gc.mem_alloc() if _steps[0] else 0
    t = time.ticks_us()
    _step(self, now)
    t = time.ticks_diff(time.ticks_us(), t)
    if t > _last[6]:
        _last[6] = t
        if _steps[0]:
            _steps[1] = gc.mem_alloc() - a


def _what_step(self, now):
    # Session.step while `step_what` is asked for: `_probe_step`, noting what the longest
    # step did (its reads, some 0.2 ms a pass, fall outside the step's time but inside a
    # request's and a pass's: only when asked)
    r = self.records
    an = self.announcer
    held = r.held
    busy = an.busy()
    planned = self.clock.planned
    said = an.said
    ready = an._ready
    found = an._found
    built = self.clock.sides[self.clock.turn].next_left
    mark_at = r.mark_at
    check_at = self.upkeep.check_at
    longest = _last[6]
    _probe_step(self, now)
    if _last[6] != longest:
        w = _what
        w[0] = held
        w[1] = r.held
        w[2] = 1 if busy else 0
        w[3] = self.clock.planned - planned
        w[4] = an.said - said
        w[5] = 1 if an._ready is not ready else 2 if an._found is not found else 0
        w[6] = 0 if self.clock.sides[self.clock.turn].next_left == built else 1
        w[7] = 0 if r.mark_at == mark_at else 1
        w[8] = 0 if self.upkeep.check_at == check_at else 1


def _probe_feed(self, data, now, n=-1):
    # gc.mem_alloc() walks the whole heap's block table (milliseconds on an RP2040): read
    # before the clock starts, so the probe's own cost is not the request's.
    _last[1] = gc.mem_alloc()
    _last[7] = 0
    _last[0] = time.ticks_us()
    _last[4] = 1
    _passes[0] = 1  # (the pass reading the request began before it)
    return _feed(self, data, now, n)


def _probe_send(self):
    t = time.ticks_us()
    _send(self)
    t = time.ticks_diff(time.ticks_us(), t)
    if t > _sends[0]:
        _sends[0] = t
    if _last[4] and not self.session.out.used:  # the reply is out, all of it
        _last[2] = time.ticks_diff(time.ticks_us(), _last[0])
        _last[8] = _last[2] - _last[7]
        _last[3] = gc.mem_alloc() - _last[1]
        _last[4] = 0
        _passes[1] = _passes[0]
    if _last[5] and not self.session.out.used:
        # The probe's own reply is out: what it cost is nobody's section.
        _last[5] = 0
        if _win[0] and not _win[2]:
            _win[2] = 1  # the window starts with the next pass
        _last[6] = 0
        _steps[1] = 0
        _sends[0] = 0
        for name in _sections:
            acc = _sections[name]
            acc[0] = acc[1] = 0


_sections = {}  # name -> [calls, us]


def _timed(name, f):
    acc = _sections.setdefault(name, [0, 0])

    def w(*a, **k):
        t = time.ticks_us()
        try:
            return f(*a, **k)
        finally:
            acc[0] += 1
            acc[1] += time.ticks_diff(time.ticks_us(), t)

    return w


def _wrap(spec):
    mod, _, path = spec.partition(":")
    obj = __import__(mod, None, None, ["x"])
    names = path.split(".")
    for n in names[:-1]:
        obj = getattr(obj, n)
    setattr(obj, names[-1], _timed(spec, getattr(obj, names[-1])))


def _probe(proto, req):
    for mode, key in ((1, "lock_ms"), (2, "alloc_ms")):
        if key in req:
            _win[0], _win[1], _win[2] = mode, req[key], 0
    if "step_alloc" in req:
        _steps[0] = 1 if req["step_alloc"] else 0
    if "step_what" in req:
        session.Session.step = _what_step if req["step_what"] else _probe_step
    for spec in req.get("time") or ():
        if spec not in _sections:
            _wrap(spec)
    sections = {}
    for name in _sections:
        acc = _sections[name]
        sections[name] = [acc[0], acc[1]]
    code_at = _code_at(req["code_at"]) if "code_at" in req else None
    _last[5] = 1  # zeroed once this reply is out (_probe_send)
    gc_us = time.ticks_us()
    gc.collect()
    gc_us = time.ticks_diff(time.ticks_us(), gc_us)
    t = time.ticks_us()
    gc.mem_alloc()
    t = time.ticks_diff(time.ticks_us(), t)
    return {
        "mem_alloc_us": t,
        "gc_us": gc_us,
        "max_step_us": _last[6],
        "max_step_alloc": _steps[1],
        "max_step_what": list(_what),
        "max_send_us": _sends[0],
        "sections": sections,
        "mem_free": gc.mem_free(),
        "mem_alloc": gc.mem_alloc(),
        "last_us": _last[2],
        "last_cpu_us": _last[8],
        "last_alloc": _last[3],
        "last_passes": _passes[1],
        "app_file": session.__file__,
        "probe_bytes": probe_bytes,
        "window": dict(_done),
        "lock_trace": _trace_text(),
        "journal": _journal(),
        "stack_max": stackpaint.deepest(),
        "code_at": code_at,
    }


FUN_CODE_WORD = 12  # mp_obj_fun_bc_t: base, context, child_table, then bytecode (py/objfun.h)


def _code_at(module):
    import machine

    mod = __import__(module, None, None, ["x"])
    found = {}
    for name in dir(mod):
        obj = getattr(mod, name)
        if type(obj).__name__ == "function":
            found[name] = machine.mem32[id(obj) + FUN_CODE_WORD]
    return found


def _trace_text():
    if _trace[0] is None:
        return None
    import io
    import sys

    out = io.StringIO()
    sys.print_exception(_trace[0], out)
    _trace[0] = None
    return out.getvalue()


_session = [None]  # the session the serial protocol serves (for `journal`)


def _journal():
    """What the quiet-time storage work sees: erased chunks ready, chunks to erase, the
    chunks in all, the file system's free bytes, and whether it wants work now; and whether
    the next call's table and clip are made ready (app/session.py `calls_ready`)."""
    s = _session[0]
    if s is None:
        return None
    j = s.journal
    running = s.clock.state == "running"
    return {
        "spares": len(j.spares),
        "dirty": len(j.dirty),
        "chunks": len(j.pool),
        "fs_free": s.fs.free(),
        "wants_work": j.wants_work(running),
        "current": j.current,
        "calls_ready": s.calls_ready(),
    }


def _probe_init(self, app_, write=None, source="host"):
    _init(self, app_, write, source)
    if source == "host":  # the serial line's protocol, not the hall's
        _session[0] = app_.s
        self._cmds["probe"] = _probe  # (the shared table: called as _probe(protocol, req))


# The C stack's deepest use since boot (stackpaint.py): `stack_max` in every reply. The
# probe's own wrappers (Loop._step, HostLine.feed, Session.step) are in it: a level each.
stackpaint.paint()
hostline.HostLine.feed = _probe_feed
commands.Protocol.__init__ = _probe_init
loop.Loop._send = _probe_send
session.Session.step = _probe_step
loop.Loop._step = _probe_pass
probe_bytes = 0  # set by probe_boot.py
