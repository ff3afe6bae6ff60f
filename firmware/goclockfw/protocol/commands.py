"""JSON-lines serial protocol: one request line in, one reply line out.

The contract for the host tool is docs/protocol.md. This module only reads
(lineread.py, then strictjson.py: strict JSON in strict UTF-8), checks (reqargs.py
for the arguments, shapes.py for the JSON type of every field of a config or a
preset) and dispatches requests; the clock state lives in the application,
which it reaches through the narrow interface below. A refused request leaves
that state untouched and no exception ever escapes `handle_line`.

What it calls: the command layer (app/commands.py)
--------------------------------------------------
The protocol is one command source among others (the arbiter key, a networked clock's
MQTT topic): it checks a request's arguments, calls the command layer and turns what it
answers into the reply. Sides are ints there: 0 = black, 1 = white; times integer ms.
A command refuses with a ValueError (app/commands.py's Refused), having changed
nothing; the protocol replies `{"ok": false, "error": msg}` (for `late` and `arrive`:
`"accepted": false` with the message as `reason`, as for an ignored `press`).

  commands.info() -> dict           {"version", "board", "flash_free", "ram_free" (bytes),
                                    "battery_mv" (int or None), "voices" (the voice
                                    packs, by name)}; the protocol adds "protocol"
  commands.status() -> dict         {"state", "turn", "black", "white", "time_control",
                                    "game" (log id or None), "moves"}; a side's status is
                                    GameClock.side_status (main_ms, flagged, periods/
                                    period_ms or moves/period_ms ...), with "absent": true
                                    while the side is marked late
  commands.get_config(), commands.set_config(cfg)
                                    cfg complete, already checked (configcheck.
                                    validate_config); refused while a clock runs
  commands.get_presets(), commands.set_presets(presets)
                                    presets already checked (validate_presets)
  commands.pause(), commands.resume()
  commands.reset(preset)            preset: None (the configured time control) or a
                                    preset's number, from 1 (as the clock announces
                                    them: 预设1 is the first); refused while a clock runs
  commands.press(side) -> bool      a virtual button press, exactly as the player's
                                    button; commands.reason says why one was ignored
  commands.late(side)               mark the side absent at the start of the game
  commands.arrive(side) -> (charged_ms, late_ms)
                                    the absent side arrives, charged for its lateness
  commands.time_set(side, main_ms, periods, period_ms, moves)
                                    arbiter adjustment; the arguments not given are
                                    None; only while paused or idle; logged
  commands.maintenance() -> int or None
                                    ends the game whatever its state (logged with reason
                                    "maintenance", never resumed) so the keyboard
                                    interrupt is on: a host may take the REPL (goclock
                                    deploy --force); the id of the game ended, or None
  commands.logs                     the game logs (storage/journal.py: list, read, clear)

Events: the session calls `protocol.clock_event(...)` for every clock event (built
by goclockfw/events.py, the same object as the game log's record) and
`protocol.event(kind, fields)` for status and log notices; they are written with
the `write` callable given to Protocol only while a host asked to `watch`.
`write(buf, n)` receives one JSON line, `buf[:n]` (bytes-like, valid only during the
call: the output ring copies it) WITHOUT its trailing newline: the serial sender
adds "\\n".

Reading bytes, holding requests whose replies have no room and the output ring are the
serial line's (app/hostline.py): `lines(data)` and `reply_to(line)` are what it uses.
"""

import binascii
import json
from array import array

from goclockfw.core.timecontrol import SIDE_NAMES
from goclockfw.events import EventWriter
from goclockfw.jsontext import (
    END,
    FALSE,
    INTEGER,
    KEY_END,
    KEY_NAME,
    KIND,
    NAME,
    PAIR,
    STRING,
    TRUE,
    VALUE,
    press_line,
    render,
    scan_flat,
)
from goclockfw.modules import CONFIG, release
from goclockfw.protocol import strictjson
from goclockfw.protocol.jsonstring import NAMES, NAMES_TABLE, know
from goclockfw.protocol.lineread import OVERLONG, OVERLONG_LINE, LineReader
from goclockfw.protocol.reqargs import (
    RequestError,
    is_int,
    want_bool,
    want_int,
    want_object,
    want_seconds,
    want_side,
)

# 2: presets are numbered from 1 in `reset`; `late` and `arrive`; requests are strict JSON.
# 3: the config's `network` and `game_info`; `assign`, `time.sync`, `result`, `arbiter.ack`.
PROTOCOL_VERSION = 3
MAX_LINE = 1024  # bytes of a request line, newline included
LOG_CHUNK = 512  # bytes of log data per logs.get reply, at most
REPLY_BUF = 512  # bytes of the reply writer's buffer: a status or config reply fits
MAX_PAIRS = 8  # members of a flat request read without the full reader (scan_flat): a
# press, pause, status have 3-4, time.set and assign up to 8; more go to the full reader
# Replies a handler gives as their members' JSON, written as they are (no dict to walk).
_ACCEPTED = b'"accepted":true'
_STATUS = b""  # the status object, written by the command layer (Commands.write_status)
# Keys and values requests carry, besides the command names: read as these very strings.
_WORDS = ("id", "cmd", "side", "on", "game", "offset", "length", "preset", "config")
_WORDS += ("presets", "main", "periods", "period", "moves", "black", "white")


def _dumps(obj):
    return json.dumps(obj, separators=(",", ":"))


def _error(rid, msg):
    return _dumps({"id": rid, "ok": False, "error": msg})


def _text(reply):
    return reply if isinstance(reply, str) else bytes(reply.buf[: reply.n]).decode()


class Protocol:
    """Answers request lines for one serial connection."""

    def __init__(self, commands, write=None, source="host"):
        self.commands = commands
        self.write = write
        self.source = source  # who sends the requests: "host" (serial), "hall" (MQTT)
        self.watching = False
        self._events = None  # the event lines' writer, made when a host first watches
        # Reply lines, built in place; a reply's strings are not kept (events.py `keep`).
        self._replies = EventWriter(REPLY_BUF, keep=False)
        self.reader = LineReader(MAX_LINE)
        self._toks = array("i", [0] * (PAIR * MAX_PAIRS))  # scan_flat's output
        self._req = {}  # the request read, emptied after each: a dict made once
        self._keys = [None] * MAX_PAIRS  # its keys, to empty it
        self._nkeys = 0
        self._state_replies = {}  # clock state -> the members of a pause/resume reply
        self._templates = {}  # a reply's members (bytes) -> its template (_reply)
        self._rid = [0]  # the id a template's reply carries
        self._press_id = array("i", [0])  # a press line's id (press_line), and its reply's
        self._cmds = COMMANDS  # shared by every Protocol (the serial line's, the hall's)
        know(tuple(COMMANDS) + _WORDS)
        self._accepted = self._template(_ACCEPTED)  # an accepted press's reply (`_answer`)

    # -- input -----------------------------------------------------------

    def lines(self, data):
        """The request lines raw serial bytes complete (protocol/lineread.py: over-long
        lines are refused without being buffered, "\r" and "\r\n" end lines too, empty
        lines are skipped): copies, or OVERLONG for a line over MAX_LINE. The serial line
        reads them in place instead (`reader`, `reply_to(reader.buf, k)`)."""
        return self.reader.feed(data)

    def feed(self, data):
        """Raw serial bytes -> the reply texts of the requests they complete (tests and
        tools; the clock's serial line answers through `reader` and `reply_to`)."""
        return [_text(self.reply_to(line)) for line in self.reader.feed(data)]

    def reply_to(self, line, n=-1):
        """One request line, `line[:n]` (all of it by default; OVERLONG or OVERLONG_LINE
        for one over MAX_LINE) -> its reply: text when refused, else the reply writer
        (its `buf[:n]`, valid until the next request: the line's sender copies it)."""
        if line is OVERLONG or n == OVERLONG_LINE:
            return _error(None, "request line over %d bytes" % MAX_LINE)
        return self._answer(line, n)

    def handle_line(self, line):
        """One request line (bytes or str, newline optional) -> reply text."""
        return _text(self._answer(line, -1))

    def _answer(self, line, n):
        """One request line -> its reply: text when refused, else the reply writer."""
        rid = None
        try:
            if isinstance(line, str):
                try:
                    line = line.encode()
                except UnicodeError:  # a str holding lone surrogates (CPython callers only)
                    return _error(None, "bad JSON: invalid UTF-8")
            if n < 0:
                n = len(line)
            if n > MAX_LINE or (n == MAX_LINE and line[n - 1] != 10):
                return _error(None, "request line over %d bytes" % MAX_LINE)
            ints = self._press_id
            side = press_line(line, n, ints)
            if side >= 0:
                # The usual press, `{"id": <int>, "cmd": "press", "side": "black"|"white"}`
                # as the host tools send it: the command layer's press called straight
                # away (no dict filled and emptied, no dispatch), its reply from the
                # accepted press's template.
                rid = ints[0]
                c = self.commands
                if c.press(side):
                    w = self._replies
                    tpl = self._accepted
                    w.n = render(w.buf, 0, tpl, len(tpl), ints, ints)
                    return w
                return self._reply({"accepted": False, "reason": c.reason or "ignored"}, rid)
            toks = self._toks
            k = scan_flat(line, n, toks, NAMES_TABLE)
            try:
                req = self._request(line, n, k)
            except ValueError as e:
                return _error(None, "bad JSON: %s" % e)
            if not isinstance(req, dict):
                return _error(None, "a request must be a JSON object")
            rid = req.get("id")
            if rid is not None and not (is_int(rid) or isinstance(rid, str)):
                rid = None
                return _error(None, "'id' must be an integer or a string")
            cmd = req.get("cmd")
            if not isinstance(cmd, str):
                return _error(rid, "missing 'cmd'")
            handler = self._cmds.get(cmd)
            if handler is None:
                return _error(rid, "unknown command '%s'" % cmd[:40])
            result = handler(self, req)
            return self._reply(result, rid)
        except ValueError as e:  # RequestError, ConfigError, the command layer's Refused
            return _error(rid, str(e) or "invalid request")
        except OSError as e:  # a flash write refused (full, worn): the clock goes on
            return _error(rid, "storage error: %s" % (e,))
        except MemoryError:
            return _error(rid, "out of memory")
        except Exception as e:  # never let a request take the clock down
            return _error(rid, "internal error: %s" % type(e).__name__)
        finally:
            self._release()

    def _request(self, line, n, k):
        """The request `line[:n]` as a dict, `k` the count of its members scan_flat found
        (in `_toks`; negative: not a flat object). A flat one (the usual: plain strings,
        short integers, true/false/null) is read into a dict made once and emptied after
        the reply, its keys and known values the names' own str objects: nothing
        allocated. Anything else goes to the full strict reader (strictjson.py: nesting,
        escapes, UTF-8, fractions, and every error's message). Raises JSONError."""
        toks = self._toks
        if k >= 0:
            req = self._req
            keys = self._keys
            for p in range(k):
                b = p * PAIR
                i = toks[b + KEY_NAME]
                key = NAMES[i] if i >= 0 else str(line[toks[b] : toks[b + KEY_END]], "ascii")
                if key in req:
                    break  # a duplicate key: the full reader says where
                kind = toks[b + KIND]
                if kind == STRING:
                    i = toks[b + NAME]
                    v = NAMES[i] if i >= 0 else str(line[toks[b + VALUE] : toks[b + END]], "ascii")
                elif kind == INTEGER:
                    v = toks[b + VALUE]
                else:
                    v = True if kind == TRUE else False if kind == FALSE else None
                req[key] = v
                keys[p] = key
                self._nkeys = p + 1
            else:
                return req
            self._release()
        # Strict: MicroPython's json takes `{"cmd":"pause"]` and bad UTF-8 (strictjson.py).
        return strictjson.loads(line if n == len(line) else bytes(line[:n]))

    def _release(self):
        """Empty the request dict (its table kept: deleting leaves the slots allocated)."""
        req = self._req
        keys = self._keys
        for p in range(self._nkeys):
            del req[keys[p]]
            keys[p] = None
        self._nkeys = 0

    def _template(self, result):
        """The template of the reply whose members are `result` (bytes) and a numeric id."""
        tpl = self._templates[result] = b"{" + result + b',"id":\x01,"ok":true}'
        return tpl

    def _reply(self, result, rid):
        """`result` with "id" and "ok": true, as one JSON line in the reply writer. A result
        given as bytes is its members' JSON already (_ACCEPTED); _STATUS is the status."""
        w = self._replies
        if result is not _STATUS and type(result) is bytes and type(rid) is int:
            if -0x3FFFFFFF <= rid <= 0x3FFFFFFF:  # (a small int on every port)
                # The usual reply (a press accepted, a pause): its members and a numeric
                # id, from a template made once per reply (one viper call, jsontext.py).
                tpl = self._templates.get(result)
                if tpl is None:
                    tpl = self._template(result)
                ints = self._rid
                ints[0] = rid
                w.n = render(w.buf, 0, tpl, len(tpl), ints, ints)
                return w
        # A long reply grew it (presets.get: to 2 KB): given back at the next reply built
        # this way (never a press's, which allocates nothing).
        w.give_back()
        w.n = 0
        w.put_byte(123)  # "{"
        if result is _STATUS:
            self.commands.write_status(w)
            w.put_byte(44)
        elif isinstance(result, bytes):
            w.put_bytes(result)
            w.put_byte(44)
        else:
            for k in result:
                if k != "id" and k != "ok":
                    w.put_str(k)
                    w.put_byte(58)  # ":"
                    w.put_value(result[k])
                    w.put_byte(44)  # ","
        w.put_bytes(b'"id":')
        w.put_value(rid)
        w.put_bytes(b',"ok":true}')
        return w

    # -- output ----------------------------------------------------------

    def event(self, kind, fields=None):
        """Push an event line (`{"event": kind, ...fields}`) when watching."""
        if not self.watching or self.write is None:
            return
        ev = dict(fields) if fields else {}
        ev["event"] = kind
        try:
            b = _dumps(ev).encode()
            self.write(b, len(b))
        except Exception:  # a broken line must not break the clock
            pass

    def event_line(self, buf, n):
        """An event line written already (`buf[:n]`: a clock event, the game log's record
        without its checksum, app/records.py) sent when watching."""
        if self.watching and self.write is not None:
            try:
                self.write(buf, n)
            except Exception:  # a broken line must not break the clock
                pass

    def clock_event(self, clock, kind, side, t, tick, value, extra=None):
        """A clock listener call as an event line (the game log's record, without checksum)."""
        if not self.watching or self.write is None:
            return
        try:
            w = self._events or self._event_writer()
            w.clock_event(clock, kind, side, t, tick, value, extra)
            self.write(w.buf, w.n)
        except Exception:  # a broken line must not break the clock
            pass

    def status_event(self):
        """The status object as an event line, when watching (written in place)."""
        if not self.watching or self.write is None:
            return
        try:
            w = self._events or self._event_writer()
            w.n = 0
            w.put_bytes(b'{"event":"status",')
            self.commands.write_status(w)
            w.put_byte(125)
            self.write(w.buf, w.n)
        except Exception:  # a broken line must not break the clock
            pass

    def _event_writer(self):
        # Made by the first `watch` (not in a watched press): a clock nobody watches, most
        # of them, keeps its buffer and its caches.
        w = self._events = EventWriter()
        return w


class Handlers:
    """The protocol's command handlers, one per request's `cmd` (COMMANDS below), each
    called as handler(protocol, request): it checks the request's arguments, calls the
    command layer (`p.commands`) and returns the reply's members (a dict, or bytes of
    their JSON). A class of plain functions, not methods: no instance is made, and on the
    frozen image the class's dict is in flash (tools/rp2/patches/0009)."""

    def info(p, req):
        r = dict(p.commands.info())
        r["protocol"] = PROTOCOL_VERSION
        return r

    def status(p, req):
        return _STATUS

    # The config's commands import their checks here and let them go after
    # (goclockfw/modules.py): a running clock holds none of them.
    def config_get(p, req):
        try:
            return {"config": p.commands.get_config()}
        finally:
            release(CONFIG)

    def config_set(p, req):
        from goclockfw.protocol import shapes
        from goclockfw.storage.configcheck import validate_config

        try:
            new = want_object(req, "config")
            shapes.check_config(new)
            merged = dict(p.commands.get_config())
            for k in new:
                merged[k] = new[k]
            cfg = validate_config(p.commands.with_secrets(merged))
            p.commands.set_config(cfg)
            return {"config": p.commands.get_config()}
        finally:
            release(CONFIG)

    def presets_get(p, req):
        return {"presets": p.commands.get_presets()}

    def presets_set(p, req):
        from goclockfw.protocol import shapes
        from goclockfw.storage.configcheck import validate_presets

        try:
            shapes.check_presets(req.get("presets"))
            presets = validate_presets(req.get("presets"))
            p.commands.set_presets(presets)
            return {"presets": p.commands.get_presets()}
        finally:
            release(CONFIG)

    def logs_list(p, req):
        return {"logs": p.commands.logs.list()}

    def logs_get(p, req):
        game = want_int(req, "game", 0, 0x7FFFFFFF)
        if game is None:
            raise RequestError("'game' is required")
        offset = want_int(req, "offset", 0, 0x7FFFFFFF, 0)
        length = want_int(req, "length", 1, LOG_CHUNK, LOG_CHUNK)
        data, size = p.commands.logs.read(game, offset, length)
        b64 = binascii.b2a_base64(data).decode().strip() if data else ""
        return {
            "game": game,
            "offset": offset,
            "size": size,
            "data": b64,
            "eof": offset + len(data) >= size,
        }

    def logs_clear(p, req):
        game = want_int(req, "game", 0, 0x7FFFFFFF)
        return {"removed": p.commands.logs.clear(game)}

    def watch(p, req):
        on = want_bool(req, "on")
        if on and p._events is None:
            p._event_writer()
        p.watching = on
        return {"on": on}

    def time_set(p, req):
        side = want_side(req)
        main_ms = want_seconds(req, "main")
        period_ms = want_seconds(req, "period")
        periods = want_int(req, "periods", 0, 1000)
        moves = want_int(req, "moves", 0, 1000)
        if main_ms is None and period_ms is None and periods is None and moves is None:
            raise RequestError("give at least one of 'main', 'periods', 'period', 'moves'")
        try:
            p.commands.time_set(side, main_ms, periods, period_ms, moves)
        finally:
            release(("goclockfw.core.adjust",))  # imported by the clock's adjust
        return dict(p.commands.status()[SIDE_NAMES[side]])

    def pause(p, req):
        p.commands.pause()
        return Handlers._state_reply(p)

    def resume(p, req):
        p.commands.resume()
        return Handlers._state_reply(p)

    def _state_reply(p):
        """`"state":"..."`: the members of a pause or resume reply, made once per state."""
        state = p.commands.clock_state()
        r = p._state_replies.get(state)
        if r is None:
            r = p._state_replies[state] = b'"state":' + _dumps(state).encode()
        return r

    def reset(p, req):
        # Numbered from 1, as the clock announces them (预设1 is the first): the command
        # layer refuses a number the clock has no preset for.
        p.commands.reset(want_int(req, "preset", 1, 1000))
        st = p.commands.status()
        return {"state": st["state"], "time_control": st["time_control"]}

    def press(p, req):
        return Handlers._press_side(p, want_side(req))

    def _press_side(p, side):
        c = p.commands
        if c.press(side):
            return _ACCEPTED
        return {"accepted": False, "reason": c.reason or "ignored"}

    def late(p, req):
        side = want_side(req)  # a bad argument is an error; a refusal is not accepted
        try:
            p.commands.late(side)
        except ValueError as e:
            return {"accepted": False, "reason": str(e) or "ignored"}
        return {"accepted": True}

    def arrive(p, req):
        side = want_side(req)
        try:
            charged_ms, late_ms = p.commands.arrive(side)
        except ValueError as e:
            return {"accepted": False, "reason": str(e) or "ignored"}
        return {"accepted": True, "charged_ms": charged_ms, "late_ms": late_ms}

    def assign(p, req):
        from goclockfw.storage.netconfig import INFO_KEYS, game_info_field

        try:
            info = {}
            for k in INFO_KEYS:
                if k in req:
                    info[k] = req[k]
            try:
                info = game_info_field("game_info", info)
            except ValueError as e:  # "game_info.round: ..." -> "'round': ..."
                field, _, why = str(e)[len("game_info.") :].partition(":")
                raise RequestError("'%s':%s" % (field, why)) from None
            p.commands.assign(info)
            return {"game_info": info}
        finally:
            release(CONFIG)

    def time_sync(p, req):
        utc = req.get("utc")
        if not is_int(utc):
            raise RequestError("'utc' must be the time of day in ms since 1970 (an integer)")
        p.commands.time_sync(utc, p.source)
        return {"utc": utc}

    def result(p, req):
        r = req.get("result")
        if not isinstance(r, str):
            raise RequestError("'result' must be a string: B+R, W+T, B+3.5, 0, Void, ? ...")
        p.commands.result(r, p.source)
        return {"result": r}

    def arbiter_ack(p, req):
        p.commands.arbiter_ack(p.source)
        return {"calling": False}

    def maintenance(p, req):
        return {"ended": p.commands.maintenance()}


# Each command's handler, called as handler(protocol, request): one table for every
# Protocol, of functions (in flash on the frozen image), where a dict of bound methods
# made per Protocol held 0.5 KB of the heap each.
COMMANDS = {
    "info": Handlers.info,
    "status": Handlers.status,
    "config.get": Handlers.config_get,
    "config.set": Handlers.config_set,
    "presets.get": Handlers.presets_get,
    "presets.set": Handlers.presets_set,
    "logs.list": Handlers.logs_list,
    "logs.get": Handlers.logs_get,
    "logs.clear": Handlers.logs_clear,
    "watch": Handlers.watch,
    "time.set": Handlers.time_set,
    "pause": Handlers.pause,
    "resume": Handlers.resume,
    "reset": Handlers.reset,
    "press": Handlers.press,
    "late": Handlers.late,
    "arrive": Handlers.arrive,
    "maintenance": Handlers.maintenance,
    "assign": Handlers.assign,
    "time.sync": Handlers.time_sync,
    "result": Handlers.result,
    "arbiter.ack": Handlers.arbiter_ack,
}
