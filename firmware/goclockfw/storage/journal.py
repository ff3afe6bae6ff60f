"""The game logs: each game's records appended to flash chunks, durable as each is written.

A game's log is a sequence of *parts*, each one chunk (chunks.py): the chunk's header,
then a claim line naming the game and the part, then the log itself:

    GCJ1 3f9a0c11d2e4b756\\n      the chunk (written when the chunk was made)
    G00012 0003\\n                 game 12, part 3 (programmed when the part was claimed)
    {"event":"press",...,"c":"1f0e33a2"}\\n   records (storage/logline.py): checksummed,
    {"event":"call",...,"c":"..."}\\n          each chained to the one before, across parts
    ......{"event":"press",...}\\n   progress marks: one "." per MARK_MS of running clock
                                   since the last record; the next record follows them
                                   on their line (in one program)

The log is the resume point too. A record is durable once `record` returns (a page
program: about a millisecond, no erase), and nothing else is kept: after a power cut the
application replays the newest game's records through the clock core and adds MARK_MS for
each mark after the last one, so the log and the resume point can never disagree, and
the running side regains at most MARK_MS. A part is never written again after a cut:
the writer moves to a fresh part, so a record torn by the cut stays the last bytes of its
part, where readers stop.

Erases happen only in `work()`, which the application calls at quiet moments: it erases
chunks freed by cleared or dropped games and makes new chunks while the flash has room.
Before a game starts, SPARES_SETUP erased chunks are made ready (128 KB: the log of a
long game), so that a game erases nothing while its clocks run (finished games are
dropped for them only while fewer than SPARES_START are ready: a small flash keeps the
game just played); only a game that outgrows them has chunks erased while it runs, at
quiet moments, SPARES_RUNNING at a time. A board that cannot time a press during an
erase (the ESP32: `erase_running` False) erases nothing else while a clock runs either: no freed chunk is erased, no
broken one dropped, until the clock stops or the spares are down to the reserve (an
emergency: a game that outgrew its spares, or started before they were ready).
Claiming a part is two page programs (its claim line, then the line's newline: a claim
is one only once whole). When no spare is left but the reserve,
only essential records (moves, pauses, adjustments, rulings, the end) are written; calls
and notices are dropped first. When even finished games are gone and the flash is full,
the running game writes a snapshot of the clock and gives up its own oldest parts: the
beginning of that game's log is lost, the game itself is not. Before a part goes, a "cut"
record says so and names the checksum the first record kept is chained to (`from`), so
the log that is left still verifies from its first line (logline.verify) and nobody can
take more of its beginning away unseen.

The log that `read` serves is the parts' record lines (with the marks they begin with),
without chunk headers, claim lines or torn tails: `goclock logs verify` checks its chain
(marks carry no checksum and are skipped; a line of marks alone, as an earlier firmware
closed them with a newline, too).

A power cut can stop any program part way, any of its bits still at 1: every write that
takes more than one program is ordered so that what a cut leaves reads as before it or
as after it (a claim's newline last; a record after marks begins with "{", which no
torn program can turn into a "."; a game
cleared by a mark in its first part before its parts are struck out, which a boot
finishes). The table of them is in docs/storage.md.
"""

from goclockfw.bytesops import filled, int_to4
from goclockfw.storage.chunks import ERASED, HEADER_LEN, PAGE
from goclockfw.storage.logline import LineBuilder, check_line, claimed

CLAIM_AT = HEADER_LEN
CLAIM_LEN = 12  # b"G" + 5 digits + b" " + 4 digits + b"\n"
DATA_AT = CLAIM_AT + CLAIM_LEN
# A claim line is live while its first byte is b"G" (LIVE) and its newline (END, programmed
# last) is whole. Later programs of one byte each (bits only go from 1 to 0: what a cut
# leaves of one is the old byte, or a byte that is neither) change what it says:
LIVE = 0x47
_STRUCK = b"\x00"  # at CLAIM_AT: the part is no longer the game's (its erase comes later)
SEP = CLAIM_AT + 6  # the space between the game and the part; _STRUCK there, the claim
CLEARING = 0x00  # still live: the whole game is being cleared (a boot finishes it)
END = CLAIM_AT + CLAIM_LEN - 1
# A progress mark per this much running clock. A cut gives back less than this plus the
# lateness of the last mark (the loop wakes for each; erases keep clear of them): the
# promise is at most 2 s.
MARK_MS = 1500
SEQ = "seq"  # the last game id given, so ids are never reused
MAX_GAME = 99999
SPARES_SETUP = 32  # erased chunks ready before a game starts (128 KB on 4 KB blocks)
SPARES_RUNNING = 2  # below this, a running game's chunks are erased (at quiet moments)
RESERVE = 1  # spares only essential records may take
# Before a game starts, a finished game is dropped for room only while fewer than this
# many chunks are ready: the rest of SPARES_SETUP comes from free space alone, and a game
# that outgrows what it was given drops the oldest finished game then, while it runs.
# So the game just played is still on a small flash after the reset (it has not been
# pulled yet), until the next game needs its room.
SPARES_START = SPARES_RUNNING + RESERVE
# Blocks one `work` step may erase when it makes a new chunk: the chunk's own block, and
# littlefs compacting the logs directory's metadata pair around it (counted on the
# Pico's geometry by the chip model). Recycling a used chunk erases one.
CREATE_ERASES = 3
HEADROOM = 65536  # bytes the chunks leave free in the file system (config, voice packs)
SNAPSHOT_MOVES = 100  # a snapshot of the clock every this many moves: replay stays short
# Records a game cannot do without (its moves and the arbiter's actions); the others
# (calls, notices, refusals) can be rebuilt by replay or lost when the flash is full.
ESSENTIAL = ("game", "start", "press", "pause", "resume", "adjust", "ruling", "late")
ESSENTIAL2 = ("arrive", "end", "snapshot", "cut", "timeout", "forfeit", "period", "block")
_ESSENTIAL = {k: True for k in ESSENTIAL + ESSENTIAL2}  # (looked up, not searched)
CUT = b'{"event":"cut"'
_DOT = 46
_NL = 10
_OPEN = 123  # "{": a record's first byte
_ERASED = 0xFF


def _digits(buf, start, n):
    v = 0
    for i in range(start, start + n):
        d = buf[i] - 48
        if d < 0 or d > 9:
            return -1
        v = v * 10 + d
    return v


def _erased_from(buf, at):
    """Is everything from `at` to the end of `buf` (a block) erased?"""
    return filled(buf, at, len(buf), ERASED) == 1


def _field_hex(line, key):
    """The 8 hex digits after `key` in a record line as an int, or None."""
    i = line.find(key)
    if i < 0 or i + len(key) + 8 > len(line):
        return None
    try:
        return int(line[i + len(key) : i + len(key) + 8], 16)
    except ValueError:
        return None


def _field_int(line, key):
    """The integer after `key` in a record line, or 0 (no JSON parse: a scan stays cheap)."""
    i = line.find(key)
    if i < 0:
        return 0
    i += len(key)
    v = 0
    while i < len(line) and 48 <= line[i] <= 57:
        v = v * 10 + line[i] - 48
        i += 1
    return v


class GameScan:
    """What one game's parts hold: where each part's good lines end, records, chain."""

    def __init__(self, gid):
        self.gid = gid
        self.parts = []  # [(chunk index, end offset of the last whole line)]
        self.size = 0  # bytes served: the parts' lines
        self.records = 0
        self.crc = 0  # checksum of the last good record
        self.marks = 0  # marks after the last record (a running clock's progress)
        self.torn = False  # a part ended in a damaged or unfinished line
        self.damaged = 0  # lines inside a part that do not check (kept, not replayed)
        self.ended = False  # an "end" record: the game is closed
        self.missing = 0  # parts that are gone (reused when the flash was full)
        self.last_t = 0  # game time of the last good record
        self.cut_from = 0  # the newest "cut" record's `from`: the chain the head follows


class Journal:
    """Game logs in a ChunkPool: claims, appends, marks, reading, and the quiet-time work."""

    def __init__(self, pool, headroom=HEADROOM, setup_spares=SPARES_SETUP, erase_running=True):
        self.pool = pool
        self.setup_spares = setup_spares
        self.erase_running = erase_running  # False: while a clock runs, only keep the reserve
        # Bytes the chunks leave free for other files: less on a small flash.
        total = pool.nblocks * pool.block_size
        self.headroom = headroom if headroom < total // 8 else total // 8
        self.block_size = pool.block_size
        self.games = {}  # game id -> {part number: chunk index}
        self.spares = []  # erased chunks ready to claim
        self.dirty = []  # chunks to erase before reuse
        self.current = None  # id of the game being written
        self.part = -1  # its part being written
        self.error = None  # the last storage problem, for the app to report
        self.dropped = 0  # records not written (flash full)
        self.failures = 0
        self.moves_since_snapshot = 0
        self._chunk = -1  # chunk of the part being written
        self._off = 0  # next byte to write in it
        self._crc = bytearray(4)  # chain: checksum of the last record written (4 bytes, LE)
        self._head_crc = 0  # the chain value the game's first kept record follows
        self._t = 0  # game time of the record being written
        self.last_t = 0  # game time of the last record written
        self._records = 0
        self._done = []  # [(chunk, end)] of the running game's full parts
        self._done_size = 0  # bytes served of them
        self._line_end = 0  # end of the last whole line in the part being written
        self._marks = 0  # marks written since the last record (a mark line is open)
        self.lines = LineBuilder()  # where each record is written (Records writes clock events)
        self._dot = b"."
        # Finished games as logs.list shows them: game id -> (size, records), 16 B a game
        # where a GameScan kept ~250 (a clock with a hundred games held 25 KB after a
        # logs.list). A game's entry is dropped whenever its parts change; the full scan of
        # the game read last is kept too (`_last_scan`, while its entry stands): a pull
        # reads one game, a part at a time.
        self._scans = {}
        self._last_scan = None
        self._seq = 0
        self._stuck = -1  # spares count at which work() last found nothing to do
        self._stuck_running = False  # ... and whether a clock ran then (what it may do)
        self.lean = False  # the flash is full: only essential records are written

    # ----- boot ------------------------------------------------------------------

    def load(self):
        """Read the pool: which chunk holds which part of which game, which are spare."""
        pool = self.pool
        pool.scan()
        self.games = {}
        self.spares = []
        self.dirty = []
        head = bytearray(DATA_AT + 1)
        clearing = []
        for i in range(len(pool)):
            if pool.blocks[i] < 0:
                continue  # broken: removed by work()
            pool.read(i, 0, head)
            if head[CLAIM_AT] == _ERASED:
                # A cut during an erase can leave a chunk half erased: check it all.
                (self.spares if self._blank(i) else self.dirty).append(i)
                continue
            gid = _digits(head, CLAIM_AT + 1, 5)
            part = _digits(head, CLAIM_AT + 7, 4)
            # A claim is whole with its newline. (An earlier firmware wrote the claim in one
            # program and, after a cut that left the newline out, wrote the game into the
            # part: a claim without its newline whose part holds data is its.)
            end = head[END] == _NL or (head[END] == _ERASED and head[DATA_AT] != _ERASED)
            whole = head[CLAIM_AT] == LIVE and end and gid > 0 and part >= 0
            if whole and head[SEP] == CLEARING:
                clearing.append((gid, i))  # a clear cut short: finished below
                self.dirty.append(i)
                continue
            if not whole or head[SEP] != 32:
                self.dirty.append(i)  # a torn claim, or a cleared or given-up part
                continue
            parts = self.games.setdefault(gid, {})
            if part in parts:
                self.dirty.append(i)  # a duplicate (a cut while a part was reclaimed)
                continue
            parts[part] = i
        for gid, i in clearing:
            # The game's clear was cut short: it is gone, whatever parts are left.
            self._drop_parts(self.games.pop(gid, {}))
            self._strike(i)
        self._seq = self._read_seq()

    def _read_seq(self):
        data = self.pool.fs.read(self.pool.dir + "/" + SEQ)
        try:
            return int(data) if data else 0
        except ValueError:
            return 0

    def ids(self):
        """Game ids stored, oldest first."""
        return sorted(self.games)

    def newest(self):
        ids = self.ids()
        return ids[-1] if ids else None

    # ----- reading a game's parts -----------------------------------------------------

    def scan(self, gid, visit=None):
        """A GameScan of game `gid`; `visit(record)` is called with each good record."""
        if visit is None and gid in self._scans and gid != self.current:
            last = self._last_scan
            if last is not None and last.gid == gid:
                return last
        scan = GameScan(gid)
        parts = self.games.get(gid, {})
        buf = bytearray(self.block_size)
        view = memoryview(buf)
        expect = 0
        for part in sorted(parts):
            if part != expect:
                scan.missing += part - expect
            expect = part + 1
            i = parts[part]
            self.pool.read(i, 0, buf)
            end = self._scan_part(buf, view, scan, visit)
            scan.parts.append((i, end))
            scan.size += end - DATA_AT
        if gid != self.current:
            self._scans[gid] = (scan.size, scan.records)
            self._last_scan = scan
        return scan

    def _scan_part(self, buf, view, scan, visit):
        pos = DATA_AT
        n = len(buf)
        end = pos
        while pos < n and buf[pos] != _ERASED:
            nl = buf.find(b"\n", pos)
            stop = nl if nl >= 0 else n
            if buf[pos] == _DOT:
                k = pos
                while k < stop and buf[k] == _DOT:
                    k += 1
                scan.marks += k - pos
                if k == stop and nl >= 0:
                    pos = end = nl + 1  # a line of marks (an earlier firmware closed them)
                    continue
                if k == stop or buf[k] != _OPEN:
                    # An unfinished mark line at the part's end: progress, not served. The
                    # marks before a torn byte (a mark, or the record that was to follow
                    # them) were each whole when written: they count.
                    pos = k
                    break
                pos = k  # the record that followed them, on their line
            if nl < 0:
                scan.torn = True  # a record cut short
                return end
            line = bytes(view[pos:nl])
            try:
                rec, c = check_line(line, scan.crc, visit is not None)
            except ValueError:
                after = nl + 1
                if after >= n or buf[after] == _ERASED:
                    scan.torn = True  # the part's last line, damaged: a write cut short
                    return end
                # Damage inside the log is evidence: served as it is (verify shows it),
                # skipped by replay; the chain goes on from what the line claims.
                claimed_crc = claimed(line)
                if claimed_crc is not None:
                    scan.crc = claimed_crc
                scan.damaged += 1
                pos = end = after
                continue
            scan.crc = c
            scan.records += 1
            scan.marks = 0
            scan.last_t = _field_int(line, b'"t":')
            if visit is not None:
                visit(rec)
                if rec.get("event") == "end":
                    scan.ended = True
            elif buf.find(b'{"event":"end"', pos, nl) == pos:
                scan.ended = True
            if buf.find(CUT, pos, nl) == pos:
                c_from = _field_hex(line, b'"from":"')
                if c_from is not None:
                    scan.cut_from = c_from
            pos = end = nl + 1
        if not _erased_from(buf, pos):
            # Bytes after the part's last line (and marks) that are not erased: a program
            # torn by a cut before its first byte changed. Not an empty part: never reused.
            scan.torn = True
        return end

    # ----- writing ----------------------------------------------------------------------

    def begin(self, gid=None):
        """Make a new game (or `gid` again, to go on after a cut) the one written, and claim
        its next part. Returns the game id.

        With no spare chunk ready (`error` says so) it is still the game written: its first
        write claims a part once `work` has made one. (Before, a game resumed after a cut
        early in a fresh flash's first game, before any spare was made, was never written
        again: every later press lost.)"""
        self.close()
        if gid is None:
            ids = self.ids()
            last = max(self._seq, ids[-1] if ids else 0)
            gid = last + 1 if last < MAX_GAME else 1
            self._seq = gid
            try:
                self.pool.fs.write_atomic(self.pool.dir + "/" + SEQ, b"%d" % gid)
            except OSError:
                pass  # ids then come from the chunks alone
            part = 0
            int_to4(0, self._crc)
            self._head_crc = 0
            self._records = 0
            self._done = []
            self._done_size = 0
        else:
            scan = self.scan(gid)
            parts = self.games.get(gid, {})
            part = max(parts) + 1 if parts else 0
            int_to4(scan.crc, self._crc)
            self._head_crc = scan.cut_from
            self._records = scan.records
            self._done = list(scan.parts)
            self._done_size = scan.size
            self._scans.pop(gid, None)
        self.current = gid
        self.moves_since_snapshot = 0
        self.part = part - 1  # a claim takes part `self.part + 1`
        self._chunk = -1
        self._off = self.block_size  # no part yet: the next write claims one
        self._line_end = DATA_AT
        self._marks = 0
        self._claim(gid, part)
        return gid

    def reopen_empty(self, gid):
        """Go on with game `gid` whose only part was claimed but holds nothing yet."""
        self.close()
        [(part, i)] = list(self.games[gid].items())
        self.current = gid
        self.part = part
        self._chunk = i
        self._off = self._line_end = DATA_AT
        int_to4(0, self._crc)
        self._records = 0
        self._done = []
        self._done_size = 0
        self._marks = 0
        self.moves_since_snapshot = 0

    def _claim(self, gid, part):
        """Program the claim line of a spare chunk: the game's next part."""
        pool = self.pool
        while self.spares:
            i = self.spares.pop(0)
            line = b"G%05d %04d\n" % (gid, part)
            try:
                # The newline last, in a program of its own: a cut that tears the first
                # leaves no newline, and no claim (a torn digit could name another part).
                pool.program(i, CLAIM_AT, line, CLAIM_LEN - 1)
                pool.program(i, END, b"\n")
            except OSError as e:
                self.error = "claiming a log chunk failed: %s" % e
                self.dirty.append(i)
                continue
            if self._chunk >= 0 and self.current == gid:
                self._done.append((self._chunk, self._line_end))
                self._done_size += self._line_end - DATA_AT
            self.games.setdefault(gid, {})[part] = i
            self.part = part
            self._chunk = i
            self._off = self._line_end = DATA_AT
            self._marks = 0
            return True
        self.error = "no erased flash left for the game log"
        return False

    def _blank(self, i):
        """Is chunk i erased past its header? (Read a page at a time.)"""
        page = bytearray(PAGE)
        for at in range(0, self.block_size, PAGE):
            self.pool.read(i, at, page)
            # (the header, before CLAIM_AT, is never erased)
            if not filled(page, CLAIM_AT if at == 0 else 0, PAGE, ERASED):
                return False
        return True

    def record(self, kind, t, side=None, value=None, extra=None):
        """Append one record; True once it is durable. Never raises."""
        if self.current is None:
            return False
        lines = self.lines
        try:
            lines.event(kind, t, side, value, extra)
        except Exception as e:  # a value json cannot write: report, go on
            self.error = "game log record %s not written: %r" % (kind, e)
            self.failures += 1
            return False
        self._t = t
        ok = self._append(kind)
        lines.give_back()  # (a snapshot's, a config's line is longer than a clock event's)
        return ok

    def record_clock(self, clock, kind, side, t, tick, value, extra=None):
        """Append a clock listener call as its record; True once it is durable."""
        if self.current is None:
            return False
        try:
            self.lines.clock_event(clock, kind, side, t, tick, value, extra)
        except Exception as e:
            self.error = "game log record %s not written: %r" % (kind, e)
            self.failures += 1
            return False
        return self._event_in(kind, t)

    def append_event(self, kind, t):
        """Append the event written already in `lines` (app/records.py writes a clock event
        there, and sends it to a watching host before it is sealed) as its record; True
        once it is durable."""
        if self.current is None:
            return False
        if kind == "press":  # (`_event_in`, written out: a call less in every press)
            self.moves_since_snapshot += 1
        self._t = t
        return self._append(kind)

    def _event_in(self, kind, t):
        if kind == "press":
            self.moves_since_snapshot += 1
        self._t = t
        return self._append(kind)

    def _append(self, kind):
        lines = self.lines
        lines.seal(self._crc)  # the new checksum in lines.sealed: chained once written
        n = lines.n
        if self.lean and kind not in _ESSENTIAL:
            self.dropped += 1
            self.error = "flash full: %s records dropped" % kind
            return False
        off = self._off
        if off + n > self.block_size:
            if DATA_AT + n > self.block_size:
                # More than a part holds (not a record this firmware makes on 4 KB blocks):
                # programmed on, it would run into the next block.
                self.dropped += 1
                self.failures += 1
                self.error = "game log record %s not written: %d bytes, too long" % (kind, n)
                return False
            if len(self.spares) <= RESERVE and kind not in _ESSENTIAL:
                self.dropped += 1
                self.error = "flash full: %s records dropped" % kind
                return False
            if not self._claim(self.current, self.part + 1):
                self.dropped += 1
                return False
            off = self._off
        try:
            # Right after any open marks, on their line: one program. (Closing the marks
            # with a newline first took two: a newline torn in one go can stop at ".", which
            # has every 1 bit a newline has, so its bit 5 had to go alone first. A torn "{"
            # can only be 0xFF, 0xFB, 0x7F or "{": never a mark.)
            self.pool.program(self._chunk, off, lines.buf, n)
        except OSError as e:
            # The part may hold part of the record now: go on in a fresh part.
            self.error = "game log write failed: %s" % e
            self.failures += 1
            self._off = self.block_size
            return False
        self._off = self._line_end = off + n
        # The new checksum is the chain's now: the two 4-byte buffers change places.
        self._crc, lines.sealed = lines.sealed, self._crc
        self.last_t = self._t
        self._records += 1
        self._marks = 0
        return True

    def count(self):
        """Records written to the current game's log (the last one's number, from 1)."""
        return self._records

    def mark(self):
        """One progress mark: MARK_MS more of running clock since the last record."""
        if self.current is None:
            return False
        if self._off + 1 > self.block_size:
            if len(self.spares) <= RESERVE or not self._claim(self.current, self.part + 1):
                return False
        try:
            self.pool.program(self._chunk, self._off, self._dot)
        except OSError:
            self._off = self.block_size
            return False
        self._off += 1
        self._marks += 1
        return True

    def end(self, t, reason=None, fields=None):
        """Close the running game with an "end" record (which counts its records)."""
        if self.current is not None:
            extra = [("records", self._records + 1)]
            if fields:
                extra.extend(fields)
            self.record("end", t, None, reason, extra)
        self.close()

    def close(self):
        self.lean = False
        if self.current is not None:
            self._scans.pop(self.current, None)
        self.current = None
        self._chunk = -1
        self.part = -1

    # ----- quiet-time work ---------------------------------------------------------------

    def wants_work(self, running):
        """True when `work` has something to do (an erase, a commit) at a quiet moment."""
        target = self._target(running)
        spares = len(self.spares)
        if running and not self.erase_running and spares > RESERVE:
            return False  # the board cannot time a press during an erase: not unless needed
        if self.dirty or -1 in self.pool.blocks:  # (a broken chunk: searched in C)
            return True
        if spares < target:
            # Tried with this many: wait for a change (or for the clock to start or stop:
            # a running game may give up its oldest part, a stopped one may not).
            return self._stuck != spares or self._stuck_running != running
        return target == self.setup_spares and spares > self.setup_spares + 2

    def _target(self, running):
        """The erased chunks wanted now: SPARES_SETUP before a game starts, SPARES_RUNNING
        from its first record until it is closed (the next reset), paused or over too.

        A paused game is a game in progress. If it started before its SPARES_SETUP chunks
        were ready, the rest are not made in its pauses (each one a file created through
        littlefs, which allocates, in the passes of a clock that may be resumed at any
        moment): they are made as for any game that outgrows its chunks, one at a quiet
        moment while it runs once it is down to SPARES_RUNNING. Chunks to recycle
        (`dirty`) are still erased in a pause."""
        return SPARES_RUNNING if self._in_game(running) else self.setup_spares

    def _in_game(self, running):
        """A game in progress: its clock runs, or it has records (paused, over) and has
        not been closed by a reset."""
        return running or (self.current is not None and self._records)

    def step_erases(self):
        """How many blocks the next `work` step may erase: the quiet time it needs."""
        return 1 if self.dirty else CREATE_ERASES

    def _broken(self):
        return -1 in self.pool.blocks  # (searched in C: this runs on every loop pass)

    def work(self, running, free_bytes, snapshot=None):
        """Do ONE erase-sized step toward the spares wanted; returns a notice or None.

        Called only at quiet moments (the caller knows the deadlines and the speaker).
        `free_bytes()` says how much the file system has left; `snapshot()` writes a
        snapshot record of the running game (needed before it gives up its own parts)."""
        pool = self.pool
        for i in range(len(pool)):
            if pool.blocks[i] < 0:
                self._drop_chunk(i)  # a commit; the chunk could not be found anyway
                return None
        if self.dirty:
            i = self.dirty[0]
            try:
                pool.erase(i)
            except OSError as e:
                self.dirty.pop(0)
                self.error = "erasing a log chunk failed: %s" % e
                return None
            # Listed as a spare before it leaves the dirty list: a MemoryError between the
            # two leaves it dirty (erased once more later), never in neither list.
            self.spares.append(i)
            self.dirty.pop(0)
            return None
        target = self._target(running)
        if len(self.spares) >= target:
            if target == self.setup_spares and len(self.spares) > self.setup_spares + 2:
                self._drop_chunk(self.spares[-1])  # more than a game needs: space back
            return None
        free = free_bytes()
        if free < 0 or free - self.block_size >= self.headroom:
            try:
                self.spares.append(pool.create())
                return None
            except OSError:
                pass  # the file system is fuller than it said: take a game's chunks
        victim = self._oldest_finished()
        if victim is not None and (self._in_game(running) or len(self.spares) < SPARES_START):
            self._tombstone_game(victim)
            return "game %d dropped to make room for the game log" % victim
        if running and self.current is not None and not self.lean:
            self.lean = True  # from now on the game keeps only its essential records
            return "flash full: calls and notices are no longer logged in this game"
        # The last resort, once only essential records are written and the reserve is all
        # that is left: the running game's oldest part, behind a snapshot, so its resume
        # point always fits.
        if running and self.current is not None and len(self.spares) <= RESERVE:
            if len(self.games.get(self.current, ())) > 2:
                return self._give_up_oldest_part(snapshot)
        self._stuck = len(self.spares)  # nothing to be done until a spare is used
        self._stuck_running = running
        return None

    def _drop_chunk(self, i):
        """Remove chunk i from the file system and from every list that names a chunk by
        its index (the indexes above it shift down by one).

        Everything new is built first, the chunk's file removed next, and then the lists
        are only assigned: a MemoryError part way (a fragmented heap) leaves every index
        naming the chunk it named before, never a neighbour (a record programmed there
        would go into another game's part)."""

        def shift(lst):
            return [j - 1 if j > i else j for j in lst if j != i]

        spares = shift(self.spares)
        dirty = shift(self.dirty)
        games = {}
        for gid in self.games:
            parts = self.games[gid]
            games[gid] = {
                p: parts[p] - 1 if parts[p] > i else parts[p] for p in parts if parts[p] != i
            }
        done = [(j - 1 if j > i else j, end) for j, end in self._done]
        scans = {}
        self.pool.remove(i)
        self.spares = spares
        self.dirty = dirty
        self.games = games
        if self._chunk > i:
            self._chunk -= 1
        self._done = done
        self._scans = scans

    def _oldest_finished(self):
        for gid in self.ids():
            if gid != self.current:
                return gid
        return None

    def _tombstone_game(self, gid):
        """Clear game `gid`'s parts: for a reader, at once (a cut leaves it whole or gone).

        Each part is struck out by a program of its claim's first byte (durable at once;
        the erase comes later), but a game of several parts takes several programs, and a
        cut between them would leave its last parts alone: a log whose first record is
        chained to a part that is gone. So the first program marks the whole game as
        being cleared (the byte between its id and its part, in its first part), then the
        parts are struck out, that one last; a boot that finds the mark finishes the clear."""
        self._stuck = -1
        parts = self.games.pop(gid, {})
        self._scans.pop(gid, None)
        if not parts:
            return
        first = parts.pop(min(parts))
        if parts:  # more than one part: the mark first
            try:
                self.pool.program(first, SEP, _STRUCK)
            except OSError:
                pass  # the strikes below still clear it (tail first: at worst a head stays)
            self._drop_parts(parts)
        self._strike(first)

    def _drop_parts(self, parts):
        for part in sorted(parts, reverse=True):  # the tail first: a cut leaves a head
            self._strike(parts[part])

    def _strike(self, i):
        """Chunk i is no longer a game's part: its claim struck out, its erase to come."""
        try:
            self.pool.program(i, CLAIM_AT, _STRUCK)
        except OSError:
            pass
        if i not in self.dirty:
            self.dirty.append(i)

    def _give_up_oldest_part(self, snapshot):
        parts = self.games[self.current]
        if snapshot is None or not snapshot():
            return None
        oldest = min(parts)
        i = parts[oldest]
        # The chain value the next part's first record follows.
        after = self._chain_after(i)
        # Said before it is done: a cut between the two leaves a record naming a part
        # that is still there, which verify simply does not need.
        fields = (("game", self.current), ("parts", oldest + 1), ("from", "%08x" % after))
        if not self.record("cut", self.last_t, None, None, fields):
            return None
        del parts[oldest]
        self._head_crc = after
        for k in range(len(self._done)):
            if self._done[k][0] == i:
                self._done_size -= self._done[k][1] - DATA_AT
                del self._done[k]
                break
        self._strike(i)
        return "flash full: the oldest part of the running game's log was reused"

    def _chain_after(self, i):
        """The chain value chunk i, the running game's oldest part, passes on: as its readers
        compute it (a torn last line passes on nothing; a part of marks only, what it was
        given)."""
        buf = bytearray(self.block_size)
        self.pool.read(i, 0, buf)
        scan = GameScan(self.current)
        scan.crc = self._head_crc
        self._scan_part(buf, memoryview(buf), scan, None)
        return scan.crc

    # ----- the protocol's view ---------------------------------------------------------

    def list(self):
        """[{"game", "size", "records"}] of every stored game, oldest first (a game set
        up but not started has no log yet and is not listed)."""
        out = []
        for gid in self.ids():
            if gid == self.current:
                if not self._records and not self._done:
                    continue  # set up, not started: no log yet
                size, records = self._served(), self._records
            else:
                if gid not in self._scans:
                    self.scan(gid)
                size, records = self._scans[gid]
            out.append({"game": gid, "size": size, "records": records})
        return out

    def read(self, gid, offset, length):
        """(bytes from `offset`, at most `length`, size) of game `gid`'s served log."""
        if gid not in self.games:
            raise ValueError("no game %d" % gid)
        if gid == self.current:
            parts = self._done + ([(self._chunk, self._line_end)] if self._chunk >= 0 else [])
            size = self._served()
        else:
            scan = self.scan(gid)
            parts, size = scan.parts, scan.size
        if offset >= size:
            return b"", size
        out = bytearray()
        pos = 0
        for i, end in parts:
            n = end - DATA_AT
            if offset < pos + n and len(out) < length:
                start = offset - pos if offset > pos else 0
                take = n - start
                if take > length - len(out):
                    take = length - len(out)
                chunk = bytearray(take)
                self.pool.read(i, DATA_AT + start, chunk)
                out.extend(chunk)
                offset = pos + start + take
            pos += n
        return bytes(out), size

    def _served(self):
        return self._done_size + self._line_end - DATA_AT

    def clear(self, gid=None):
        """Drop one finished game, or all of them; the count dropped."""
        if gid is not None:
            if gid == self.current:
                raise ValueError("game %d is being played: its log is kept" % gid)
            if gid not in self.games:
                raise ValueError("no game %d" % gid)
            self._tombstone_game(gid)
            return 1
        gone = [g for g in self.ids() if g != self.current]
        for g in gone:
            self._tombstone_game(g)
        return len(gone)
