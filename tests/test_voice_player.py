"""The I2S player on IMA ADPCM clips: what it sends, what it refuses, and what it never does
(allocate per block, raise, stop the clock).

The decoder itself is checked against sox in test_voice_adpcm.py; here the player is
checked to send those samples, block after block, cut at the `fact` count, and to turn
every damaged header into a refusal with a reason (the same one `goclock voice check`
gives), never an exception. The last tests run the player under the MicroPython unix port
with the heap locked, and a session whose pack has a bad clip.
"""

import json
import os
import random
import shutil
import subprocess
import sys
import zlib

import pytest

from conftest import REPO, run_micropython
from goclock.voice import clips
from goclock.voice.speaker import Speaker
from goclockfw.audio import player_i2s
from goclockfw.core.gameclock import RUNNING
from goclockfw.desktop.parts import DesktopPlayer
from goclockfw.storage.logline import verify_bytes
from support.sessions import make_session
from support.testboard import TestBoard
from support.vclock import VirtualClock
from support.wavs import FakeI2S, adpcm_blocks, adpcm_wav_bytes, decoded, pcm_wav, samples

DATA = os.path.join(REPO, "tests", "data", "voice_adpcm")
SOUNDS = os.path.join(REPO, "sounds")


def sox_samples(name):
    with open(os.path.join(DATA, name + ".sox.raw"), "rb") as f:
        return samples(f.read())


def fact_of(path):
    return clips.Clip(path).frames


def test_a_sox_clip_is_sent_as_sox_decodes_it_block_by_block():
    clip = os.path.join(DATA, "sweep.wav")
    count = fact_of(clip)
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 16000, volume=10)
    assert player.play(clip) and player.busy()
    i2s.drain()
    assert not player.busy() and player.error is None
    blocks = -(-count // 505)
    assert i2s.sizes == [1010] * blocks  # one decoded block a callback
    out = samples(i2s.out)
    assert out[:count] == sox_samples("sweep")[:count]
    assert out[count:] == [0] * (blocks * 505 - count)  # the padding is not played


def test_512_byte_blocks_and_a_short_last_block(tmp_path):
    data = adpcm_blocks(3, 512, seed=5, last=100)  # the last block: 100 bytes, 193 samples
    count = 2 * 1017 + 150
    path = tmp_path / "c.wav"
    path.write_bytes(adpcm_wav_bytes(data, count, align=512))
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 16000, volume=10)
    assert player.play(str(path))
    i2s.drain()
    assert i2s.sizes == [2034] * 3
    out = samples(i2s.out)
    assert out[:count] == decoded(data, 512, count)
    assert out[count:] == [0] * (3 * 1017 - count)


def test_the_output_buffer_grows_for_512_byte_blocks_and_keeps_the_one_in_flight(tmp_path):
    """Made for 256-byte blocks (1010 bytes out); the first clip of 512-byte blocks makes
    it 2034 bytes, once. A machine.I2S in non-blocking mode holds a bare pointer to the
    buffer being sent, so the old one is kept until the I2S has taken it (its callback)."""
    data = adpcm_blocks(2, 512, seed=7)
    path = tmp_path / "c.wav"
    path.write_bytes(adpcm_wav_bytes(data, 2 * 1017, align=512))
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 16000, volume=10)
    assert len(player._out) == 1024 and player._palette is None  # chunk 512: 1024 bytes
    assert player.play(os.path.join(DATA, "sweep.wav"))  # 256-byte blocks: no growth
    old = player._out
    assert len(old) == 1024
    assert player.play(str(path))  # cuts the sweep while its first block is in flight
    assert len(player._out) == 2034 and player._retired is old
    i2s.drain()
    assert player._retired is None
    assert i2s.sizes == [1010, 2034, 2034]
    assert samples(i2s.out[1010:]) == decoded(data, 512, 2 * 1017)
    assert player.play(str(path)) and player._out is not old  # grown once, for good
    i2s.drain()


def test_the_volume_is_an_i2s_shift():
    clip = os.path.join(DATA, "sweep.wav")
    count = fact_of(clip)
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 16000, volume=7)  # SHIFT[7] == 1: half
    player.play(clip)
    i2s.drain()
    assert samples(i2s.out)[:count] == [v >> 1 for v in sox_samples("sweep")[:count]]


def test_a_clip_made_ready_ahead_starts_without_opening_and_sends_the_same(monkeypatch):
    """`prepare` opens the clip and decodes its first block at a quiet moment; `play` of
    that clip then opens nothing and sends exactly what a cold start sends."""
    clip = os.path.join(DATA, "sweep.wav")
    cold = FakeI2S()
    player = player_i2s.I2SPlayer(cold, 16000, volume=7)
    player.play(clip)
    cold.drain()
    opened = []
    warm = FakeI2S()
    player = player_i2s.I2SPlayer(
        warm, 16000, volume=7, opener=lambda *a: opened.append(a) or open(*a)
    )
    # Two calls (two quiet loop passes): the clip found and its header read, then its
    # first block decoded; nothing is sent.
    assert player.prepare(clip) is None and len(opened) == 1 and player._ready is None
    assert player.prepare(clip) is True and not player.busy() and warm.sizes == []
    assert player.prepare(clip) and len(opened) == 1  # already ready: nothing done again
    assert player.play(clip) and player.busy() and len(opened) == 1
    assert warm.sizes == [1010]  # the block made ready, sent at once
    warm.drain()
    assert warm.out == cold.out and warm.sizes == cold.sizes and player.error is None
    # Anything else played meanwhile drops what was ready; so does a volume change.
    assert player.prepare(clip) is None and player.prepare(clip) is True
    player.set_volume(5)
    assert player.play(clip) and len(opened) == 3  # opened again: not started from the old one
    assert player.prepare(clip) is False  # it plays: nothing made ready meanwhile
    warm.drain()
    # Half made (the header read) and then something else played: started over.
    assert player.prepare(clip) is None
    player.play(((440, 10),))
    warm.drain()
    assert player.prepare(clip) is None and len(opened) == 5


@pytest.fixture(scope="module")
def device_sounds(tmp_path_factory):
    """The zh pack as `goclock voice push` leaves it on the clock: /sounds/zh/clips.bin
    and its manifest, no file a clip."""
    from goclock.voice import pack

    root = tmp_path_factory.mktemp("device") / "sounds"
    (root / "zh").mkdir(parents=True)
    pack.device_pack(os.path.join(SOUNDS, "zh"), str(root / "zh"))
    return root


def test_the_pack_form_plays_every_phrase_as_its_own_file_does(device_sounds):
    """The clips file, opened once, gives each phrase the samples its own file gives; a
    clip's stop or refusal never closes it."""
    from goclockfw.app.announcer import Announcer

    assert sorted(os.listdir(device_sounds / "zh")) == ["clips.bin", "manifest.json"]
    files = Announcer()
    assert files.load_pack(SOUNDS, "zh") is None and files.clips_file is None
    packed = Announcer()
    assert packed.load_pack(str(device_sounds), "zh") is None
    assert packed.clips_file == "%s/zh/clips.bin" % device_sounds
    opened = []
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(
        i2s, packed.rate, volume=7, opener=lambda *a: opened.append(a[0]) or open(*a)
    )
    packed.set_player(player)
    assert opened == [packed.clips_file]
    phrases = json.loads((device_sounds / "zh" / "manifest.json").read_text("utf-8"))["phrases"]
    assert len(phrases) > 100
    for phrase in phrases:
        clip = packed.clip(phrase)
        assert clip == (phrases[phrase]["at"], phrases[phrase]["frames"])
        cold = FakeI2S()
        by_file = player_i2s.I2SPlayer(cold, files.rate, volume=7)
        assert by_file.play(files.clip(phrase))
        cold.drain()
        i2s.out = bytearray()
        i2s.sizes = []
        assert player.play(clip), (phrase, player.error)
        i2s.drain()
        assert (i2s.out, i2s.sizes) == (cold.out, cold.sizes), phrase
    # Made ready in two parts, then cut by another call: the clips file stays open.
    phrase = "还剩2次"
    assert player.prepare(packed.clip(phrase)) is None
    assert player.prepare(packed.clip(phrase)) is True
    assert player.play(packed.clip("10秒")) and player.busy()
    player.stop()
    assert player.play(packed.clip(phrase))
    assert opened == [packed.clips_file] and not player._pack.closed
    # A clip past the file's end (a manifest that does not match its clips file) plays
    # nothing; the clips file is kept.
    at, frames = packed.clip(phrase)
    size = os.path.getsize(packed.clips_file)
    i2s.drain()
    assert player.play((size + at, frames)) is False and not player.busy()
    assert player.play(packed.clip(phrase)) and not player._pack.closed
    # A new pack (or none) closes it.
    kept = player._pack
    packed.set_player(None)
    assert kept.closed


def test_the_announcer_prepares_a_packed_clip_over_two_quiet_passes(device_sounds):
    from goclockfw.app.announcer import Announcer

    a = Announcer()
    assert a.load_pack(str(device_sounds), "zh") is None
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, a.rate, volume=7)
    a.set_player(player)
    assert a.prepare("还剩2次") is False  # a part left: asked again at the next quiet pass
    assert a.prepare("还剩2次") is True and player._ready == a.clip("还剩2次")
    assert a.prepare("还剩2次") is True  # nothing more to do
    a.say("还剩2次", 0, 1000, 1000)
    assert i2s.sizes == [1010]  # started from the block made ready
    # The announcer names the clips' format as the player's header parser does.
    from goclockfw.app.announcer import _clips_format
    from goclockfw.audio import wavhead

    assert _clips_format({"encoding": "ima-adpcm", "block_align": 512}) == (wavhead.ADPCM, 512)
    assert _clips_format({"encoding": "pcm", "sample_width": 2}) == (16, 0)


def test_a_pack_form_the_player_cannot_use_beeps_and_a_bad_offset_is_refused(
    device_sounds, tmp_path
):
    from goclockfw.app.announcer import Announcer

    a = Announcer()
    assert a.load_pack(str(device_sounds), "zh") is None
    a.set_player(DesktopPlayer(None, 5))  # no use_pack: no clip, so the phrase beeps
    assert a.clip("10秒") is None
    root = tmp_path / "sounds"
    (root / "zh").mkdir(parents=True)
    m = json.loads((device_sounds / "zh" / "manifest.json").read_text("utf-8"))
    m["phrases"]["10秒"]["at"] = -4
    (root / "zh" / "manifest.json").write_text(json.dumps(m), "utf-8")
    b = Announcer()
    warning = b.load_pack(str(root), "zh")
    assert "unusable" in warning and "10秒: at and frames are not counts" in warning
    assert b.clips == b"" and b.clips_file is None
    m["clips"] = 7
    (root / "zh" / "manifest.json").write_text(json.dumps(m), "utf-8")
    assert "clips is not a file name" in b.load_pack(str(root), "zh")
    # Clips of a format the player cannot take: said once, the clock beeps.
    m["clips"] = "clips.bin"
    m["phrases"]["10秒"]["at"] = 0
    m["block_align"] = 300
    (root / "zh" / "manifest.json").write_text(json.dumps(m), "utf-8")
    shutil.copyfile(device_sounds / "zh" / "clips.bin", root / "zh" / "clips.bin")
    assert b.load_pack(str(root), "zh") is None
    b.set_player(player_i2s.I2SPlayer(FakeI2S(), b.rate, volume=7))
    assert b.fault == "clips of 4 bits in blocks of 300 bytes: not played"
    m["block_align"] = 256
    # A clips file missing on the flash: the player says so once, the clock beeps.
    m["clips"] = "gone.bin"
    m["phrases"]["10秒"]["at"] = 0
    (root / "zh" / "manifest.json").write_text(json.dumps(m), "utf-8")
    assert b.load_pack(str(root), "zh") is None
    player = player_i2s.I2SPlayer(FakeI2S(), b.rate, volume=7)
    b.set_player(player)
    assert b.fault == "no clips file %s/zh/gone.bin" % root
    assert player.play(b.clip("10秒")) is False and "no clips file" in player.error


def test_the_announcer_starts_the_next_call_from_what_it_made_ready():
    from goclockfw.app.announcer import Announcer

    a = Announcer()
    assert a.load_pack(SOUNDS, "zh") is None
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, a.rate, volume=7)
    a.set_player(player)
    started = []
    play = player.play
    player.play = lambda what: started.append((what, player._ready == what)) or play(what)
    assert a.prepare("5秒") is False  # found, its header read: a part left
    assert a.prepare("5秒") is True  # its first block decoded
    assert i2s.sizes == []
    a.say("5秒", 0, 1000, 1000)
    assert started == [(a.clip("5秒"), True)]  # the ready clip, started as it was
    i2s.drain()
    a.pump(2000)
    a.prepare("5秒")  # the clip that just played is made ready again for next time
    a.say("8秒", 0, 3000, 3000)  # not the one made ready: played the ordinary way
    assert started[-1][1] is False


def test_a_new_call_cuts_an_adpcm_clip_for_a_pcm_one(tmp_path):
    # A pack is one format, but the player takes any clip at its rate, one after another.
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 16000, chunk=128, volume=10)
    assert player.play(os.path.join(DATA, "sweep.wav"))
    pcm = pcm_wav(tmp_path / "p.wav", rate=16000, frames=bytes(range(200)))
    assert player.play(pcm)  # the first block is in flight
    i2s.drain()
    assert i2s.sizes == [1010, 256, 256]
    assert samples(i2s.out[1010:])[:200] == [(b - 128) * 256 for b in range(200)]


GOOD = adpcm_blocks(2, 256, seed=3)
# name: (the file's bytes, what the refusal says). Each is a header a damaged flash, a
# wrong export or a hand-made file could give.
BAD = {
    "ms-adpcm": (adpcm_wav_bytes(GOOD, 900, tag=2), "format tag 2: must be PCM (1) or IMA"),
    "no fact": (adpcm_wav_bytes(GOOD, 900, fact=False), "without a fact chunk"),
    "300-byte blocks": (
        adpcm_wav_bytes(GOOD, 900, align=300),
        "IMA ADPCM blocks of 300 bytes: must be 256 or 512",
    ),
    "odd block size": (adpcm_wav_bytes(GOOD, 900, align=257), "blocks of 257 bytes"),
    "samples per block wrong": (
        adpcm_wav_bytes(GOOD, 900, per_block=1017),
        "1017 samples per 256-byte block, expected 505",
    ),
    "stereo": (adpcm_wav_bytes(GOOD, 900, channels=2), "mono, 4 bits"),
    "3-bit": (adpcm_wav_bytes(GOOD, 900, bits=3), "mono, 4 bits"),
    "fact past the data": (adpcm_wav_bytes(GOOD, 1011), "fact says 1011 samples, the data"),
    "huge fmt": (adpcm_wav_bytes(GOOD, 900, fmt_size=0xFFFFFFF0), "fmt chunk of 4294967280"),
    "rate 0": (adpcm_wav_bytes(GOOD, 900, rate=0), "a sample rate of 0 Hz"),
    "header cut": (adpcm_wav_bytes(GOOD, 900)[:30], "short fmt chunk"),
    "no data": (adpcm_wav_bytes(GOOD, 900)[:56], "no data chunk"),
    "not RIFF": (b"ID3\x04" + bytes(60), "not a WAV file"),
    "empty": (b"", "not a WAV file"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_header_is_refused_with_its_reason_by_player_desktop_and_check(tmp_path, name):
    data, reason = BAD[name]
    path = tmp_path / "bad.wav"
    path.write_bytes(data)
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 16000, volume=10)
    assert player.play(str(path)) is False
    assert reason in player.error and not player.busy() and i2s.out == bytearray()
    desk = DesktopPlayer(None, 5)
    assert desk.play(str(path)) is False and reason in desk.error
    with pytest.raises(clips.ClipError, match=reason.split(":")[0]):
        clips.Clip(str(path))


def test_the_wrong_rate_is_refused():
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 8000, volume=10)
    assert player.play(os.path.join(DATA, "sweep.wav")) is False
    assert "16000 Hz: the pack plays at 8000 Hz" in player.error


def test_damaged_headers_never_raise(tmp_path):
    """Bytes of a good clip's header changed at random (a worn flash): play() says yes or
    no, never raises, and what it plays ends."""
    good = open(os.path.join(DATA, "sweep.wav"), "rb").read()
    rnd = random.Random(11)
    refused = 0
    for i in range(400):
        data = bytearray(good)
        for _ in range(rnd.randint(1, 4)):
            data[rnd.randrange(64)] = rnd.randrange(256)
        if i % 7 == 0:
            data = data[: rnd.randrange(80)]
        path = tmp_path / "d.wav"
        path.write_bytes(bytes(data))
        i2s = FakeI2S()
        player = player_i2s.I2SPlayer(i2s, 16000, chunk=128, volume=10)
        if player.play(str(path)):
            i2s.drain(limit=2000)
        else:
            refused += 1
            assert player.error
        assert not player.busy()
    assert 50 < refused < 400  # both outcomes were met


class FailingFile:
    """A clip file whose reads fail after `good` of them (a flash read error)."""

    def __init__(self, path, good):
        self._f = open(path, "rb")
        self._good = good

    def read(self, n):
        return self._f.read(n)

    def seek(self, off, whence=0):
        return self._f.seek(off, whence)

    def readinto(self, buf):
        if self._good <= 0:
            raise OSError(5, "EIO")
        self._good -= 1
        return self._f.readinto(buf)

    def close(self):
        self._f.close()


def test_a_read_error_half_way_stops_the_clip_silently():
    i2s = FakeI2S()
    opener = lambda path, mode: FailingFile(path, good=2)  # noqa: E731
    player = player_i2s.I2SPlayer(i2s, 16000, volume=10, opener=opener)
    assert player.play(os.path.join(DATA, "sweep.wav"))
    i2s.drain()  # no exception out of the callback
    assert not player.busy() and i2s.sizes == [1010, 1010]
    assert player.error.startswith("clip stopped: ") and "EIO" in player.error
    assert player.play(os.path.join(DATA, "sweep.wav"))  # the next call plays again
    assert player.error is None
    # A first block that cannot be read: refused, so that the announcer beeps instead.
    player = player_i2s.I2SPlayer(FakeI2S(), 16000, opener=lambda p, m: FailingFile(p, good=0))
    assert player.play(os.path.join(DATA, "sweep.wav")) is False
    assert player.error.startswith("clip stopped: ") and not player.busy()


# ----- a session whose pack has bad clips -----------------------------------------------


class I2SBoard(TestBoard):
    """The test board with the real I2S player (a fake I2S behind it, taking a buffer a
    loop pass); `failing` names clips whose reads fail after the first block."""

    failing = ("sec_10.wav",)

    def make_player(self, rate, volume):
        self.i2s = FakeI2S()

        def opener(path, mode):
            if os.path.basename(path) in self.failing:
                return FailingFile(path, good=1)
            return open(path, mode)

        player = player_i2s.I2SPlayer(self.i2s, rate, volume=volume, opener=opener)
        i2s, watchdog = self.i2s, player.poll

        def poll(now):
            # Called by the announcer every loop pass: the I2S has taken the buffer since
            # the last pass (its callback runs), then the player's own watchdog.
            if i2s.pending:
                i2s.take()
            watchdog(now)

        player.poll = poll
        self.player = player
        return player


def test_a_bad_clip_never_stops_the_clock_and_is_logged_once(tmp_path):
    sounds = tmp_path / "sounds"
    shutil.copytree(os.path.join(SOUNDS, "zh"), sounds / "zh")
    (sounds / "zh" / "sec_20.wav").write_bytes(b"RIFF junk")  # refused at once
    session = make_session(sounds=str(sounds), board=I2SBoard)
    clock = VirtualClock(session)
    tc = {"type": "byoyomi", "main": 5, "periods": 2, "period": 30}
    clock.configure(tc, voice="zh")
    said_at_setup = session.announcer.said  # the reset's own notice (重新开局)
    player = session.board.player
    assert isinstance(player, player_i2s.I2SPlayer) and player.rate == 16000
    clock.start()
    clock.run(5000 + 30000 + 29000)  # two periods: "10秒" and "20秒" said in each
    assert clock.state() == RUNNING  # in the last period, counting
    log = verify_bytes(clock.log(session.journal.current))["records"]
    # Every call the clock made was started, the ones after the bad clips too.
    calls = [x for x in log if x["event"] == "call"]
    assert len(calls) == session.announcer.said - said_at_setup > 15
    messages = sorted(x["message"] for x in log if x.get("notice") == "voice")
    assert len(messages) == 2, messages  # each bad clip once, though each was called twice
    assert messages[0].endswith("/zh/sec_20.wav: not a WAV file")  # a path sorts first
    assert messages[1] == "clip stopped: OSError(5, 'EIO')"


def test_a_session_on_the_pack_form_starts_its_calls_from_clips_made_ready(device_sounds):
    """The pack as pushed: a game's calls are spoken, each (but a game's first few, said
    before a quiet pass came) from a clip made ready ahead, none logged as a fault."""
    session = make_session(sounds=str(device_sounds), board=I2SBoard)
    clock = VirtualClock(session)
    clock.configure({"type": "byoyomi", "main": 5, "periods": 3, "period": 30}, voice="zh")
    player = session.board.player
    started = []
    play = player.play
    player.play = lambda what: started.append(player._ready == what) or play(what)
    clock.start()
    clock.run(5000 + 30000 + 29000)
    assert clock.state() == RUNNING
    log = verify_bytes(clock.log(session.journal.current))["records"]
    calls = [x for x in log if x["event"] == "call"]
    assert len(calls) >= 10 and not [x for x in log if x.get("notice") == "voice"]
    assert len(started) >= len(calls) and started.count(True) >= len(calls) - 2, started


LOOKUP = """
import json, sys
from goclockfw.app.announcer import Announcer, _entry, _lookup
a = Announcer()
assert a.load_pack(sys.argv[1], sys.argv[2]) is None and a._index is not None
phrases = list(json.load(open(sys.argv[1] + "/" + sys.argv[2] + "/manifest.json"))["phrases"])
found = [_lookup(a.clips, a._index, p) == _entry(a.clips, p) is not None for p in phrases]
missing = [_lookup(a.clips, a._index, p) for p in ("", "61秒", "还剩99次", "x" * 40)]
print(json.dumps([len(phrases), sum(found), missing]))
"""


@pytest.mark.parametrize("voice", ["zh", "ja", "en"])
def test_the_clips_index_finds_what_the_table_holds_on_both_pythons(micropython, tmp_path, voice):
    """The hash index gives each phrase the line a search of the table gives, and nothing
    for a phrase not there: on CPython and on the MicroPython unix port (its own hash)."""
    from goclockfw.app.announcer import Announcer, _entry, _lookup

    a = Announcer()
    assert a.load_pack(SOUNDS, voice) is None and a._index is not None
    phrases = list(json.load(open(os.path.join(SOUNDS, voice, "manifest.json")))["phrases"])
    for p in phrases:
        assert _lookup(a.clips, a._index, p) == _entry(a.clips, p) is not None
    script = tmp_path / "lookup.py"
    script.write_text(LOOKUP)
    out = run_micropython(micropython, str(script), SOUNDS, voice)
    assert out.returncode == 0, out.stderr.decode()
    assert json.loads(out.stdout) == [len(phrases), len(phrases), [None, None, None, None]]


PLACES = """
import json, sys
from goclockfw.app.announcer import Announcer
a = Announcer()
a._use_pack = lambda *args: True  # a player that plays a clips file (no I2S here)
assert a.load_pack(sys.argv[1], "zh") is None and a._places is not None
phrases = json.load(open(sys.argv[1] + "/zh/manifest.json"))["phrases"]
right = [a.clip(p) == (phrases[p]["at"], phrases[p]["frames"]) for p in phrases]
missing = [a.clip(p) for p in ("", "还剩", "还剩2", "1 ", "61秒", "x" * 40)]
print(json.dumps([len(phrases), sum(right), missing]))
"""


@pytest.mark.parametrize("python", ["cpython", "micropython"])
def test_a_clips_files_places_are_found_as_numbers_without_a_copy_of_the_phrase(
    micropython, tmp_path, device_sounds, python
):
    """A pack in one clips file: each phrase's (at, frames) comes from the numbers kept at
    load, through the index, the phrase compared in place as UTF-8 (viper code on the
    MicroPython unix port); a phrase that is only the start of another's, or not there,
    has no clip."""
    script = tmp_path / "places.py"
    script.write_text(PLACES)
    if python == "micropython":
        out = run_micropython(micropython, str(script), str(device_sounds))
    else:
        env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "firmware"))
        out = subprocess.run(
            [sys.executable, str(script), str(device_sounds)], capture_output=True, env=env
        )
    assert out.returncode == 0, out.stderr.decode()
    n = len(json.loads((device_sounds / "zh" / "manifest.json").read_text("utf-8"))["phrases"])
    assert json.loads(out.stdout) == [n, n, [None] * 6]


def test_a_clips_frames_are_kept_16_bit_unless_one_clip_is_longer(tmp_path):
    """Each clip's frames are kept in 16 bits (220 B less for the zh pack's 110 clips)
    while every clip fits; one clip longer than 65535 frames keeps them all in 32."""
    from goclockfw.app.announcer import Announcer

    for longest, code in ((0xFFFF, "H"), (0x10000, "i")):
        pack = tmp_path / str(longest) / "zh"
        pack.mkdir(parents=True)
        phrases = {"a": {"at": 0, "frames": 7}, "b": {"at": 14, "frames": longest}}
        manifest = {"clips": "clips.pcm", "sample_width": 2, "phrases": phrases}
        (pack / "manifest.json").write_text(json.dumps(manifest))
        a = Announcer()
        a._use_pack = lambda *args: True  # a player that plays a clips file
        assert a.load_pack(str(pack.parent), "zh") is None
        assert a._frames.typecode == code
        assert [a.clip(p) for p in ("a", "b", "c")] == [(0, 7), (14, longest), None]


def test_the_clips_index_probes_past_collisions_and_gives_way_to_a_search_when_full():
    from goclockfw.app import announcer

    full = 3 * announcer.SLOTS // 4
    keys = ["k%d" % i for i in range(full)]
    table = b"\n" + b"".join(b"%s\t%d\n" % (k.encode(), i) for i, k in enumerate(keys))
    index = announcer._index_of(table)
    assert index is not None
    slots = {hash(k) % announcer.SLOTS for k in keys}
    assert len(slots) < len(keys)  # some keys share a slot: found by probing on
    assert [announcer._lookup(table, index, k) for k in keys] == [str(i) for i in range(full)]
    assert announcer._lookup(table, index, "k%d" % full) is None
    more = table + b"x\t1\n"  # one line more than the index takes: searched instead
    assert announcer._index_of(more) is None
    assert announcer._lookup(more, None, "x") == "1"
    assert announcer._index_of(b"\nno tab here\n") is None


# ----- MicroPython: no allocation per block ----------------------------------------------

DRIVER = """
import binascii, json, micropython, sys
from goclockfw.audio import player_i2s

class I2S:
    # What machine.I2S gives the player, recording nothing but a CRC and counts: no
    # allocation of its own while the heap is locked.
    def __init__(self):
        self.crc = 0
        self.writes = 0
        self.sent = 0
    def irq(self, handler):
        self.handler = handler
    def write(self, buf):
        self.crc = binascii.crc32(buf, self.crc)
        self.writes += 1
        self.sent += len(buf)
    @staticmethod
    def shift(buf, bits, shift):
        # machine.I2S.shift's arithmetic, 16-bit samples shifted right by -shift.
        n = len(buf)
        i = 0
        while i < n:
            v = buf[i] | buf[i + 1] << 8
            if v >= 32768:
                v -= 65536
            v >>= -shift
            buf[i] = v & 255
            buf[i + 1] = (v >> 8) & 255
            i += 2

out = {}
for path, volume in ((sys.argv[1], 10), (sys.argv[1], 6), (sys.argv[2], 10), (sys.argv[3], 8)):
    i2s = I2S()
    p = player_i2s.I2SPlayer(i2s, 16000, volume=volume)
    assert p.play(path)  # opening a clip may allocate: the file, the header
    t = 0
    micropython.heap_lock()  # from here, any allocation raises MemoryError
    try:
        while p.busy():
            t += 31
            p._on_sent(i2s)  # the I2S took the buffer
            p.poll(t)  # the announcer's call every loop pass: the next block
    finally:
        micropython.heap_unlock()
    out["%s@%d" % (path.rsplit("/", 1)[1], volume)] = [i2s.crc, i2s.writes, i2s.sent, p.error]
print(json.dumps(out))
"""


def test_playing_a_clip_allocates_nothing_per_block_on_micropython(micropython, tmp_path):
    script = tmp_path / "player_heap.py"
    script.write_text(DRIVER)
    shipped = os.path.join(SOUNDS, "zh", "timeout_pass.wav")  # the longest zh clip
    big = tmp_path / "b512.wav"
    big.write_bytes(adpcm_wav_bytes(adpcm_blocks(4, 512, seed=9, last=300), 3 * 1017 + 400, 512))
    pcm = pcm_wav(tmp_path / "p16.wav", rate=16000, width=2, frames=bytes(range(256)) * 20)
    out = run_micropython(micropython, str(script), shipped, str(big), pcm)
    assert out.returncode == 0, out.stderr.decode()
    got = json.loads(out.stdout)
    # The same player on CPython sends the same bytes: nothing was cut short by a
    # MemoryError under the lock (it would have stopped the clip with an error).
    for (path, volume), key in zip(
        ((shipped, 10), (shipped, 6), (str(big), 10), (pcm, 8)),
        ("timeout_pass.wav@10", "timeout_pass.wav@6", "b512.wav@10", "p16.wav@8"),
    ):
        i2s = FakeI2S()
        player = player_i2s.I2SPlayer(i2s, 16000, volume=volume)
        player.play(path)
        i2s.drain()
        assert got[key] == [zlib.crc32(i2s.out), len(i2s.sizes), len(i2s.out), None], key
    assert got["timeout_pass.wav@10"][1] > 30  # over 30 blocks went through the lock


def test_the_pc_speaker_plays_a_pcm_copy(tmp_path):
    clip = os.path.join(DATA, "sweep.wav")
    copy = clips.pcm_copy(clip, str(tmp_path))
    assert copy != clip and copy.endswith(".wav")
    c = clips.Clip(copy)
    assert (c.encoding, c.bits, c.sample_rate, c.frames) == ("pcm", 16, 16000, fact_of(clip))
    with open(copy, "rb") as f:
        f.seek(c.data_offset)
        assert samples(f.read()) == sox_samples("sweep")[: c.frames]
    assert clips.pcm_copy(clip, str(tmp_path)) == copy  # made once
    pcm = pcm_wav(tmp_path / "p.wav")
    assert clips.pcm_copy(pcm, str(tmp_path)) == pcm  # PCM is played as it is


def test_the_pc_speaker_hands_the_pc_player_a_pcm_copy(tmp_path):
    seen = tmp_path / "seen.txt"
    speaker = Speaker()
    # A stand-in for aplay: writes down the file it was given.
    speaker.command = [
        sys.executable,
        "-c",
        "import sys; open(%r, 'w').write(sys.argv[1])" % str(seen),
    ]
    speaker.play(os.path.join(DATA, "sweep.wav"))
    speaker._proc.wait(timeout=30)
    played = seen.read_text()
    assert played != os.path.join(DATA, "sweep.wav")
    assert clips.Clip(played).encoding == "pcm"
    speaker.play(os.path.join(DATA, "odd.wav.missing"))  # no such clip: nothing, no error
    assert speaker._proc is None


def test_a_clip_is_not_made_ready_into_the_buffer_a_cut_clip_still_has_in_flight(
    device_sounds,
):
    """A press cuts a call (stop) while its buffer is with the I2S; the next call's clip
    made ready at the next quiet pass must wait for the callback, not read and decode
    into that buffer (a fragment of the next call would be heard in the cut one's end)."""
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 16000, volume=10)
    with open(os.path.join(device_sounds, "zh", "manifest.json")) as f:
        manifest = json.load(f)
    assert player.use_pack(os.path.join(device_sounds, "zh", manifest["clips"]))
    first, second = list(manifest["phrases"].values())[:2]
    assert player.play((first["at"], first["frames"]))
    player.stop()  # the press: the buffer sent stays in flight
    assert i2s.pending
    assert player.prepare((second["at"], second["frames"])) is None  # not yet: call again
    assert player._opened is None  # (nothing done meanwhile)
    i2s.take()  # its callback (FakeI2S checks that the buffer was left as it was)
    assert player.prepare((second["at"], second["frames"])) is None  # found
    assert player.prepare((second["at"], second["frames"])) is True  # first block ready
    assert player.play((second["at"], second["frames"]))
    i2s.drain()
