"""The announcer: plays the clock's calls as clips of the voice pack, on time, one at a time.

The core fires each call at its exact deadline tick (`GameClock.advance`) and
the loop runs at least once a few ms after every deadline, so a call starts
within a few ms of it; `worst_late_ms` keeps the worst start seen.

One call at a time, the newer wins: a call for a later tick cuts whatever is
still playing (a call that runs over its slot is stale by then: "50秒" must
not delay "55秒"). Calls for the SAME tick are one announcement ("1分" then
"还剩4分", "10" then "超时判负") and play back to back. A press cuts the calls
of the side that just moved. A call the loop reaches more than STALE_MS after
its deadline (after a stall) is not spoken at all; it is in the game log anyway.

The next call's clip can be made ready at a quiet moment before its deadline (`prepare`,
told by the session the phrase the clock will say next): the deadline then only starts
what is ready, in a fraction of a millisecond (audio/player_i2s.py).

Playback never delays a press: presses are timed by interrupts (app/buttons.py)
and the players stream from their own callbacks (audio/player_i2s.py) or from
`pump`, which does a bounded step of work.

Voice pack: <sounds>/<voice>/manifest.json, whose "phrases" give each
phrase's clip and "device" the phrase of each notice ("pause", "preset_3"...). A pack as
`goclock voice push` leaves it has its clips in one file (the manifest's "clips") and
each phrase's place in it ("at", where its samples start, and "frames", how many): the
player keeps that file open (`use_pack`) and the clip of a phrase is (at, frames). A pack
as the repository holds it (sounds/<voice>/, the desktop's) has a file a clip ("file"). A player without `use_pack` (the desktop's) is
given the files; one that plays no clips beeps either way.
A phrase without a clip, or a player that cannot play clips (a buzzer), gets
its beep pattern (audio/beep.py): the clock never stays silent for want of a file.
A clip the player refuses (damaged, another format) or that stops half way (a flash
read error) is the player's `error`; each different one is handed to the session once,
as `fault`, which logs it: a bad clip called every minute is logged once, not every
minute (the last FAULTS different errors are remembered, until a pack is loaded).
"""

import json
from array import array

from goclockfw.bytesops import same, utf8_size
from goclockfw.core.ticks import ticks_diff

STALE_MS = 1000
# Busy passes in a row that may leave a refill to the next pass (`pump`): a deadline's
# pass, then a press answered in the next, say. The I2S's own buffer (128-256 ms) plays
# on meanwhile, and while a clip plays the loop comes back within wake.BUSY_MS.
WAIT_PASSES = 2
QUEUE = 4  # calls of one tick, at most (the cn profile has two)
FAULTS = 4  # player errors remembered, so that each is logged once


def _phrase_table(phrases, packed):
    """A manifest's phrases -> (the table of "phrase\tfile\n" lines after a "\n", and for
    a clips file each phrase's place and frame count, in the table's order, else None)."""
    # Measured first, then made in one allocation: a bytearray grown line by line
    # is reallocated at each line, and at boot, on the nearly full heap of a
    # `.mpy` deploy, that left holes where no 2 KB table fitted (a MemoryError).
    placed = packed is not None and _indexed(len(phrases))
    size = 1
    longest = 0
    for phrase in phrases:
        size += len(_line(phrase, phrases[phrase], packed, placed))  # (checks at, frames)
        if packed is not None:
            longest = max(longest, phrases[phrase]["frames"])
    table = bytearray(size)
    table[0] = 10  # "\n": every line, the first too, follows one
    # A clips file's places as numbers too, line by line: a call's clip is then
    # found without a str, a slice or an int made (`clip`), in the quiet pass
    # that makes it ready (on a `.mpy` deploy's full heap each allocation counts).
    places = frames = None
    if packed is not None:  # (sized once)
        places = array("i", range(len(phrases)))
        frames = array("H" if longest <= 0xFFFF else "i", range(len(phrases)))
    k = 1
    j = 0
    for phrase in phrases:
        entry = phrases[phrase]
        line = _line(phrase, entry, packed, placed)
        table[k : k + len(line)] = line
        k += len(line)
        if places is not None:
            places[j] = entry["at"]
            frames[j] = entry["frames"]
            j += 1
    return table, places, frames


def _notice_table(device):
    """A manifest's `device` notices -> "\nnotice\tphrase\n..." (bytes to search)."""
    said = bytearray(b"\n")
    if isinstance(device, dict):
        for notice in device:
            if isinstance(device[notice], str):
                said.extend(("%s\t%s\n" % (notice, device[notice])).encode())
    return said


class Announcer:
    def __init__(self, player=None):
        self.player = None
        self._poll = None  # the player's poll(now), looked up once: no bound method per loop
        self._waits = 0  # busy passes in a row that left the player's refill to the next
        self._hungry = None  # the player's hungry(), looked up once (`hungry`)
        self._prepare = None  # its prepare(clip), the same way
        self._use_pack = None  # its use_pack(path): it can play a pack's clips file
        self.clips = b""  # "phrase\tfile" lines of the voice pack
        self._index = None  # a hash index of those lines (`_index_of`), or None
        self._places = None  # a clips file's `at` of each line, as numbers, or None
        self._frames = None  # ... and its frames (16-bit when every clip's fit: 220 B less)
        self.base = ""  # its directory
        self.notices = b""  # "notice\tphrase" lines: what the pack says for each notice
        self.rate = 8000  # the pack's sample rate, for the board's I2S
        self.pack = None
        self.clips_file = None  # the path of the pack's clips file; None: a file a clip
        self._clips_format = (0, 0)  # its clips' bits and block size (player_i2s.use_pack)
        self.worst_late_ms = 0
        self.skipped = 0  # stale calls not spoken
        self.said = 0  # calls and notices started
        self.echo = None  # callable(phrase) told of every phrase started (the sim prints it)
        self.fault = None  # a player error the session has not logged yet
        self._faults = [None] * FAULTS  # the last ones handed over, newest at _fault_at
        self._fault_at = 0
        self._queue = [None] * QUEUE
        self._qlen = 0
        self._group = None  # tick of the calls in the queue
        self._side = -1  # whose calls are playing
        self._ready = None  # (phrase, clip) made ready by `prepare`
        self._found = None  # (phrase, clip) `prepare` has done a part of
        self.set_player(player)

    def load_pack(self, sounds_dir, voice):
        """Read a voice pack's manifest; returns a warning text or None.

        The phrase -> file table is kept as one bytes object ("phrase\tfile\n"
        lines) and searched when a call is made: a dict of a hundred strings
        would hold some 20 KB of the heap for good. The notices' phrases the same
        way ("notice\tphrase\n"): 0.5 KB where a dict of them held 1.3 KB.
        """
        base = "%s/%s" % (sounds_dir, voice)
        try:
            with open(base + "/manifest.json") as f:
                manifest = json.load(f)
            phrases = manifest["phrases"]
            packed = manifest.get("clips")
            if packed is not None:
                if not isinstance(packed, str):
                    raise ValueError("clips is not a file name")
                fmt = _clips_format(manifest)
            table, places, frames = _phrase_table(phrases, packed)
            said = _notice_table(manifest.get("device", {}))
            rate = manifest.get("sample_rate", 8000)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, MemoryError) as e:
            # (MemoryError: no room for its tables; the clock beeps, and boots)
            self.clips = b""
            self._index = None
            self._places = self._frames = None
            self.notices = b""
            self.pack = None
            self._use_clips_file(None)
            return "voice pack %s unusable (%s): beeps instead" % (voice, e)
        manifest = phrases = None
        self.base = base
        if packed is not None:
            self._clips_format = fmt
        self._use_clips_file(None if packed is None else base + "/" + packed)
        self.clips = table
        table = None
        self._index = _index_of(self.clips)
        self._places = places
        self._frames = frames
        for i in range(FAULTS):  # a new pack: its faults are news
            self._faults[i] = None
        self.notices = bytes(said)
        self.rate = rate if isinstance(rate, int) and rate > 0 else 8000
        self.pack = voice
        return None

    def prepare(self, phrase):
        """Make the clip of `phrase` ready to start (a quiet moment: nothing plays), a
        part at a time (the player's prepare). True when nothing is left to do for it;
        False when something plays or a part is left: ask again, at a later quiet pass."""
        prepare = self._prepare
        if phrase is None or prepare is None:
            return True
        if self._qlen or self.player.busy():
            return False
        ready = self._ready
        if ready is not None and ready[0] == phrase:
            if ready[1] is not None and prepare(ready[1]) is None:
                return False  # a notice played since: made ready again, a part a pass
            return True
        found = self._found
        if found is None or found[0] != phrase:
            # Looked up once, kept for the part the next pass does.
            found = self._found = (phrase, self.clip(phrase))
        clip = found[1]
        done = None if clip is None else prepare(clip)
        if done is None and clip is not None:
            return False  # half made: the next quiet pass does the rest
        self._found = None
        self._ready = (phrase, clip if done else None)  # None: the call starts the slow way
        return True

    def clip(self, phrase):
        """The clip saying `phrase` (a file's path, or (at, frames) in the clips file the
        player keeps open), or None."""
        ready = self._ready
        if ready is not None and ready[0] == phrase and ready[1] is not None:
            return ready[1]
        places = self._places
        index = self._index
        if places is not None and index is not None and self._use_pack is not None:
            slot = _slot(self.clips, index, phrase)
            if slot < 0:
                return None
            j = index[3 * slot + 2]  # its line's number
            return (places[j], self._frames[j])
        name = _lookup(self.clips, index, phrase)
        if name is None:
            return None
        if self.clips_file is None:
            return self.base + "/" + name
        if self._use_pack is None:
            return None
        space = name.find(" ")
        if space < 0:  # (a line whose place is in `_places`, with no index to reach it)
            return None
        return (int(name[:space]), int(name[space + 1 :]))

    def _use_clips_file(self, path):
        # The player keeps the pack's clips file open; one without `use_pack` beeps.
        self.clips_file = path
        self._ready = None
        self._found = None
        if self._use_pack is not None:
            bits, align = self._clips_format
            if not self._use_pack(path, bits, align):
                self._check(self.player)

    # ----- calls ---------------------------------------------------------

    def say(self, phrase, side, tick, now):
        """A call of the core, due at `tick`, seen by the loop at `now`."""
        late = ticks_diff(now, tick)
        if late > STALE_MS:
            self.skipped += 1
            return
        if self._group == tick and self._side == side:
            if self._qlen < QUEUE:
                self._queue[self._qlen] = phrase
                self._qlen += 1
            self.pump(now)
            return
        self._clear()
        self._group = tick
        self._side = side
        self._queue[0] = phrase
        self._qlen = 1
        if late > self.worst_late_ms:
            self.worst_late_ms = late
        self._start_next()

    def notice(self, name):
        """A device notice ("pause", "battery_low", "preset_2"...): cuts any call."""
        self._clear()
        self._group = None
        self._side = -1
        self._queue[0] = _entry(self.notices, name) or name
        self._qlen = 1
        # Without a clip the notice beeps by its name: audio/beep.py knows "pause", "preset_3",
        # not the pack's words for them ("暂停", "预设3").
        self._start_next(name)

    def cancel_side(self, side):
        """The side moved: its calls are no longer worth hearing."""
        if self._side == side:
            self._clear()

    def _clear(self):
        self._qlen = 0
        for i in range(QUEUE):
            self._queue[i] = None
        if self.player is not None and self.player.busy():
            self.player.stop()

    def _start_next(self, beep_as=None):
        phrase = self._queue[0]
        for i in range(1, QUEUE):
            self._queue[i - 1] = self._queue[i]
        self._queue[QUEUE - 1] = None
        self._qlen -= 1
        self.said += 1
        if self.echo is not None:
            self.echo(phrase)
        player = self.player
        if player is None:
            return
        clip = self.clip(phrase)
        self._ready = None  # whatever was ready is started now, or dropped by play()
        if clip is not None:
            if player.play(clip):
                return
            self._check(player)
        from goclockfw.audio import (
            beep,  # only when a clip is missing: 3 KB of code not kept otherwise
        )

        player.play(beep.pattern(phrase if beep_as is None else beep_as))

    def pumped(self):
        """Has `pump` anything to do: a buzzer stepping, calls queued, a clip's error?"""
        p = self.player
        return self._poll is not None or self._qlen or (p is not None and p.error is not None)

    def hungry(self):
        """Has the player handed its last block over and wants the next one now (a refill:
        a flash read and a decode, ~1.2 ms on an RP2040)?"""
        h = self._hungry
        return h is not None and h()

    def pump(self, now, busy_pass=False):
        """Let a buzzer step on, the I2S take its next block, and start the next call of
        the same tick when one ends. In a `busy_pass` (one that fired a deadline, made or
        wrote a record, or answered a host: a millisecond or so on the chip) a refill
        waits for the next pass, WAIT_PASSES in a row at most: the I2S ring still holds
        tens of ms of sound, and the loop comes back within wake.BUSY_MS while a clip
        plays. True when it refilled."""
        fed = False
        if self._poll is not None:
            hungry = self.hungry()
            if busy_pass and self._waits < WAIT_PASSES and hungry:
                self._waits += 1
            else:
                self._waits = 0
                self._poll(now)
                fed = hungry
        p = self.player
        if p is not None and p.error is not None:
            self._check(p)  # a clip stopped half way
        if self._qlen:
            if self.player is None:
                self._qlen = 0
            elif not self.player.busy():
                self._start_next()
        return fed

    def _check(self, player):
        err = player.error
        if err is not None and err not in self._faults:  # string compares: no allocation
            self._fault_at = (self._fault_at + 1) % FAULTS
            self._faults[self._fault_at] = err
            self.fault = err

    def busy(self):
        return self._qlen > 0 or (self.player is not None and self.player.busy())

    def set_player(self, player):
        old = self.player
        if old is not None and old is not player:
            old.stop()
            if self._use_pack is not None:
                self._use_pack(None)  # its clips file closed: the new player opens its own
        self.player = player
        self._ready = None
        self._found = None
        self._prepare = getattr(player, "prepare", None)  # a buzzer has nothing to prepare
        self._poll = getattr(player, "poll", None)
        self._hungry = getattr(player, "hungry", None)
        self._use_pack = getattr(player, "use_pack", None)  # the I2S player's
        if self.clips_file is not None:
            self._use_clips_file(self.clips_file)


def _clips_format(manifest):
    # (bits, block size) of a clips file's clips, as player_i2s.use_pack takes them.
    if manifest.get("encoding") == "ima-adpcm":
        return 4, manifest["block_align"]  # wavhead.ADPCM (not imported: the desktop's too)
    return 8 * manifest["sample_width"], 0


# The clips' table is searched through a hash index: a find over the whole table (1-4 KB) is
# 0.7-1.2 ms on the RP2040, a memcmp at every byte; through the index, a hash and a probe
# or two. Slots of 3 bytes: a line's offset (16 bits) and its number (8 bits), open
# addressing, at most 3/4 of them used: 4/3 of the table's lines and one (148 slots, 444 B, for
# the zh pack's 110 phrases), up to SLOTS (a table the index cannot take is searched the
# slow way).
SLOTS = 256
EMPTY = 0xFFFF


def _line(phrase, entry, packed, placed):
    """The clips table's line of `phrase` (its manifest `entry`): "phrase\tfile\n", or
    for a pack in one clips file (`packed`) "phrase\tat frames\n", or "phrase\t\n" when
    the clip's place is kept in numbers (`placed`: the table is small enough for its hash
    index, which gives a line's number; 1.2 KB of the zh pack's table was these places
    again, as text)."""
    if packed is None:
        clip = entry["file"]
    else:
        at, frames = entry["at"], entry["frames"]
        if not (isinstance(at, int) and isinstance(frames, int)) or at < 0 or frames < 0:
            raise ValueError("%s: at and frames are not counts" % phrase)
        clip = "" if placed else "%d %d" % (at, frames)
    return ("%s\t%s\n" % (phrase, clip)).encode()


def _indexed(lines):
    """Whether a table of `lines` lines fits its hash index (at most 3/4 of the slots used)."""
    return 4 * lines <= 3 * SLOTS


def _index_of(table):
    """The hash index of `table`'s lines (see `_entry`): slot hash(key) % slots, or the
    next free one, holds the offset of the key's line. None when the table is too large for
    it (`_lookup` then searches the table itself)."""
    if len(table) >= EMPTY:
        return None
    lines = table.count(b"\n", 1)  # (every line ends in one; the table starts with one)
    if not _indexed(lines):
        return None
    slots = (4 * lines + 2) // 3 + 1  # (at most 3/4 used; one free at least ends a probe)
    index = bytearray(b"\xff" * (3 * slots))
    lines = 0
    i = 1
    while i < len(table):
        tab = table.find(b"\t", i)
        end = table.find(b"\n", i)
        if tab < 0 or end < tab:
            return None  # not a table of "key\tvalue" lines
        slot = hash(table[i:tab].decode()) % slots  # as `_slot` hashes the key: a str
        while index[3 * slot] != 0xFF or index[3 * slot + 1] != 0xFF:
            slot = (slot + 1) % slots
        index[3 * slot] = i & 0xFF
        index[3 * slot + 1] = i >> 8
        index[3 * slot + 2] = lines
        lines += 1
        i = end + 1
    return index


def _slot(table, index, key):
    """The slot of `index` that holds `key`'s line of `table`, or -1: the key compared as
    it is, in place (nothing made: no bytes of it, no slice of the table)."""
    n = utf8_size(key, len(key))
    slots = len(index) // 3
    slot = hash(key) % slots
    end = len(table)
    while True:
        k = 3 * slot
        at = index[k] | index[k + 1] << 8
        if at == EMPTY:
            return -1
        if at + n < end and table[at + n] == 9 and same(table, at, key, n):
            return slot
        slot = (slot + 1) % slots


def _lookup(table, index, key):
    """What `_entry(table, key)` gives, found through `index` (`_index_of`) when there is
    one."""
    if index is None:
        return _entry(table, key)
    slot = _slot(table, index, key)
    if slot < 0:
        return None
    at = (index[3 * slot] | index[3 * slot + 1] << 8) + utf8_size(key, len(key)) + 1
    return table[at : table.find(b"\n", at)].decode()


def _entry(table, key):
    """What follows `key` on its line of `table` ("key\tvalue\n" lines, after a first
    "\n"), as text; None when no line has that key."""
    k = ("\n%s\t" % key).encode()
    i = table.find(k)
    if i < 0:
        return None
    i += len(k)
    return table[i : table.find(b"\n", i)].decode()
