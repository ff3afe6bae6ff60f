"""`goclock voice convert SRC OUT`: a folder of recordings into a pack the clock plays.

SRC holds one WAV file per phrase, named as the pack's clips are (pack.file_name:
count_1.wav, sec_30.wav, ...), in any common format (wavin.py). Each clip is

1. read and mixed down to mono; refused when it is not a WAV file, in a codec not taken,
   empty, silent or clipped (CLIP_RUN samples in a row at full scale);
2. cut roughly to its speech (200 ms kept around it), resampled to 16 kHz
   (resample.py: windowed sinc), high-passed at 80 Hz (rumble, DC), then cut to its
   speech (10 ms kept before, 30 ms after, as tools/voice/make_packs.py does:
   dsp.speech_bounds);
3. brought to a common loudness, `target_lufs` (BS.1770 integrated loudness, K-weighted
   and gated: dsp.loudness), or given a fixed `gain_db` instead; a look-ahead limiter
   keeps every peak under CEILING_DB; ramps of 5 and 10 ms at the ends;
4. rounded to 16 bits and encoded as IMA ADPCM in 256-byte blocks (adpcmenc.py), the
   format of the shipped packs.

Every clip is converted in memory first: a bad recording stops the run before anything is
written. Then OUT gets the clips (and SRC's LICENSE and CREDITS, when there are any), is
checked as `goclock voice check` checks a pack, and, when it passes, gets its manifest.
"""

import os
import shutil

from ..errors import DeviceIOError, GoclockError, UsageError
from ..words import plural
from . import adpcmenc, dsp, pack, wavin
from .resample import Resampler

RATE = 16000
# The loudness every clip is brought to; the shipped packs (peak-normalised) measure -17.1
# (zh), -13.4 (ja) and -15.8 LUFS (en), the median of their clips.
TARGET_LUFS = -16.0
CEILING_DB = -1.0  # no sample above this after the limiter (as the shipped packs' peaks)
QUIET_DB = 30.0  # a clip that needs more gain than this was recorded too quietly: noted
LIMITED_DB = 6.0  # peaks cut by more than this: noted (the clip may sound squashed)
SILENT_DBFS = -60.0  # a recording whose loudest 10 ms stay under this is taken as silence
ROUGH_MARGIN_S = 0.2
KEPT_FILES = ("LICENSE", "CREDITS")


class Converted:
    """One converted clip: its phrase, source and result, and what was done to it."""

    def __init__(self, phrase, fname, source):
        self.phrase = phrase
        self.file = fname  # the clip's name in the pack
        self.source = source  # the recording's path
        self.what = ""  # the recording's format, "44100 Hz stereo 24-bit PCM"
        self.input_s = 0.0
        self.lufs_in = None
        self.gain_db = 0.0
        self.limited_db = 0.0
        self.lufs_out = None
        self.wav = b""
        self.samples = 0

    @property
    def duration_ms(self):
        return (self.samples * 1000 + RATE // 2) // RATE

    def notes(self):
        out = []
        if self.gain_db > QUIET_DB:
            out.append(
                "%s: recorded very quietly (raised %.0f dB, the noise with it)"
                % (self.file, self.gain_db)
            )
        if self.limited_db > LIMITED_DB:
            out.append(
                "%s: peaks cut by %.1f dB to stay under %.0f dBFS (it may sound squashed: "
                "record it more evenly, or lower --target-lufs)"
                % (self.file, self.limited_db, CEILING_DB)
            )
        return out


def recording_list(profile):
    """What to record for `profile`: [(file, phrase, alone_ms, together)], in the order of
    pack.required_phrases. alone_ms: the tightest limit on the phrase by itself (None when
    it is only ever said with others); together: (other phrases, limit_ms) of the tightest
    limit it shares with phrases said right after it, or None."""
    alone, shared = {}, {}
    for rule in pack.slot_rules(profile):  # tightest first
        for phrase in rule.phrases:
            if len(rule.phrases) == 1:
                alone.setdefault(phrase, rule.limit_ms)
            elif phrase not in shared:
                others = tuple(p for p in rule.phrases if p != phrase)
                shared[phrase] = (others, rule.limit_ms)
    return [
        (pack.file_name(p, profile), p, alone.get(p), shared.get(p))
        for p in pack.required_phrases(profile)
    ]


def _wav_names(folder):
    """{lower-case name: name} of the .wav files in a folder."""
    return {n.lower(): n for n in os.listdir(folder) if n.lower().endswith(".wav")}


def guess_profile(src):
    """The profile whose clip names SRC matches best (most present, fewest missing), or
    None when it holds none of any profile's."""
    present = set(_wav_names(src))
    best, best_score = None, None
    for name in ("cn", "jp", "en"):
        profile = pack.load_profile(name)
        needed = [pack.file_name(p, profile).lower() for p in pack.required_phrases(profile)]
        found = sum(n in present for n in needed)
        score = found - (len(needed) - found)
        if found and (best_score is None or score > best_score):
            best, best_score = name, score
    return best


def profile_of(src, profile_name=None, like=None):
    """(profile name, how it was chosen) for converting SRC."""
    if profile_name:
        return profile_name, "--profile"
    if like:
        manifest = pack.read_manifest(like)
        name = os.path.basename(os.path.normpath(like))
        found = (manifest or {}).get("profile") or pack.PACK_PROFILES.get(name)
        if not found:
            raise UsageError("%s has no manifest naming its profile: give --profile" % like)
        return found, "like %s" % name
    manifest = pack.read_manifest(src)
    if manifest and manifest.get("profile"):
        return manifest["profile"], "SRC's manifest"
    guessed = guess_profile(src)
    if guessed is None:
        raise UsageError(
            "%s: no .wav file is named for a phrase (count_1.wav, sec_30.wav, ...: the "
            "README's table of clip names); give --profile cn|jp|en to list what is needed" % src
        )
    return guessed, "guessed from the file names"


def sources(src, profile):
    """({phrase: (clip name, recording path)}, [missing "phrase (file)"], [unused names])."""
    manifest = pack.read_manifest(src)
    entries = manifest["phrases"] if manifest else {}
    names = _wav_names(src)
    found, missing = {}, []
    for phrase in pack.required_phrases(profile):
        fname = pack.file_name(phrase, profile)
        entry = entries.get(phrase)
        given = entry.get("file") if isinstance(entry, dict) else None
        actual = names.get(str(given or fname).lower())
        if actual is None:
            missing.append("%s (%s)" % (phrase, given or fname))
        else:
            found[phrase] = (fname, os.path.join(src, actual))
    used = {os.path.basename(path).lower() for _, path in found.values()}
    unused = sorted(n for low, n in names.items() if low not in used)
    return found, missing, unused


def _limited_list(items, most=12):
    shown = list(items[:most])
    if len(items) > most:
        shown.append("... and %d more" % (len(items) - most))
    return shown


def _reason(exc):
    if isinstance(exc, OSError):
        return "cannot read: %s" % (exc.strerror or exc)
    return str(exc)


def _refuse(bad):
    """GoclockError naming the unusable recordings: one line for one, a list for more."""
    if len(bad) == 1:
        raise GoclockError(bad[0])
    if bad:
        lines = "\n  ".join(_limited_list(bad))
        raise GoclockError("%d recordings cannot be used:\n  %s" % (len(bad), lines))


def convert_clip(clip, target_lufs=TARGET_LUFS, gain_db=None, resamplers=None):
    """Fill in `clip` (a Converted) from its recording; WavError when it cannot be used."""
    try:
        rec = wavin.read(clip.source)
    except OSError as exc:
        raise wavin.WavError(_reason(exc)) from None
    clip.what, clip.input_s = rec.what, rec.seconds
    if rec.clipped >= wavin.CLIP_RUN:
        raise wavin.WavError(
            "clipped (%d samples in a row at full scale): record it again with less input "
            "gain, or further from the microphone" % rec.clipped
        )
    mean = sum(rec.samples) / len(rec.samples)
    x = [v - mean for v in rec.samples]
    _, levels = dsp.frame_levels(x, rec.rate)
    if not levels or max(levels) < SILENT_DBFS:
        raise wavin.WavError("no sound in it (silence only): check the microphone")
    rough = dsp.speech_bounds(x, rec.rate, lead_s=ROUGH_MARGIN_S, tail_s=ROUGH_MARGIN_S)
    x = x[rough[0] : rough[1]]
    resamplers = {} if resamplers is None else resamplers
    if rec.rate not in resamplers:
        resamplers[rec.rate] = Resampler(rec.rate, RATE)
    y = dsp.high_pass(resamplers[rec.rate](x), RATE)
    bounds = dsp.speech_bounds(y, RATE)
    if bounds is None:
        raise wavin.WavError("no sound in it once low rumble is filtered out")
    y = y[bounds[0] : bounds[1]]
    clip.lufs_in = dsp.loudness(y, RATE)
    if clip.lufs_in < dsp.ABSOLUTE_GATE:  # a click in the silence, no speech
        raise wavin.WavError("no speech in it, only a click or two: check the microphone")
    if gain_db is None:
        gain_db = target_lufs - clip.lufs_in
    clip.gain_db = gain_db
    scale = 10 ** (gain_db / 20)
    y, clip.limited_db = dsp.limit([v * scale for v in y], RATE, 10 ** (CEILING_DB / 20))
    y = dsp.fade(y, RATE)
    # Measured again only when the limiter changed it (the ramps touch the margins only).
    clip.lufs_out = dsp.loudness(y, RATE) if clip.limited_db else clip.lufs_in + gain_db
    ints = [min(32767, max(-32768, round(v * 32768))) for v in y]
    clip.samples = len(ints)
    clip.wav = adpcmenc.wav_bytes(ints, RATE)
    return clip


def _prepare_out(out, src, force):
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError("%s is a file, not a folder for the pack" % out)
    if os.path.isdir(out):
        if os.path.samefile(out, src):
            raise UsageError("OUT must be another folder than SRC (the recordings are kept)")
        if os.listdir(out) and not force:
            raise UsageError("%s is not empty: --force replaces the pack in it" % out)


def _clear_out(out):
    for name in os.listdir(out):
        if name.lower().endswith(".wav") or name in ("manifest.json",) + KEPT_FILES:
            os.remove(os.path.join(out, name))


def convert(
    src,
    out,
    profile_name=None,
    like=None,
    target_lufs=TARGET_LUFS,
    gain_db=None,
    force=False,
    progress=None,
):
    """Convert the recordings in `src` into the pack folder `out`.

    Returns (clips [Converted], notes [str], report: pack.check's Report of `out`, profile
    name, how the profile was chosen). The manifest is written only when the report is ok.
    Raises UsageError/GoclockError (bad input: exit 2) before writing anything, and
    DeviceIOError (exit 1) when `out` cannot be written."""
    if not os.path.isdir(src):
        raise UsageError("%s is not a folder of recordings" % src)
    _prepare_out(out, src, force)
    if not _wav_names(src):
        raise UsageError(
            "%s has no .wav files: record one per phrase, named as in the README "
            "(count_1.wav, sec_30.wav, ...)" % src
        )
    name, why = profile_of(src, profile_name, like)
    profile = pack.load_profile(name)
    found, missing, unused = sources(src, profile)
    if missing:
        raise GoclockError(
            "%s: %s missing for profile %s (%s):\n  %s"
            % (
                src,
                plural(len(missing), "recording"),
                name,
                why,
                "\n  ".join(_limited_list(missing)),
            )
        )
    # Headers first, all of them: a file that is no usable WAV is named in a moment, not
    # after the others have been converted.
    bad = []
    for _fname, path in found.values():
        try:
            wavin.probe(path)
        except (wavin.WavError, OSError) as exc:
            bad.append("%s: %s" % (path, _reason(exc)))
    _refuse(bad)
    clips, notes = _convert_all(profile, found, target_lufs, gain_db, progress)
    notes += ["%s is not a clip of profile %s: not used" % (n, name) for n in unused]
    report = _write_pack(src, out, name, clips)
    return clips, notes, report, name, why


def _convert_all(profile, found, target_lufs, gain_db, progress):
    """Each required phrase's recording converted: (clips, notes); every recording that
    cannot be used is named, and nothing is returned then (`_refuse`)."""
    bad, clips, notes = [], [], []
    resamplers = {}
    for i, phrase in enumerate(pack.required_phrases(profile)):
        fname, path = found[phrase]
        clip = Converted(phrase, fname, path)
        try:
            convert_clip(clip, target_lufs, gain_db, resamplers)
        except wavin.WavError as exc:
            bad.append("%s: %s" % (path, exc))
        else:
            clips.append(clip)
            notes += clip.notes()
        if progress:
            progress(i + 1, len(found), fname)
    _refuse(bad)
    return clips, notes


def _write_pack(src, out, name, clips):
    """The clips and the kept files written into `out`, checked, and the manifest written
    when the check passes: the check's report, as `voice check OUT` gives it."""
    try:
        os.makedirs(out, exist_ok=True)
        _clear_out(out)
        for clip in clips:
            with open(os.path.join(out, clip.file), "wb") as f:
                f.write(clip.wav)
        for kept in KEPT_FILES:
            if os.path.isfile(os.path.join(src, kept)):
                shutil.copyfile(os.path.join(src, kept), os.path.join(out, kept))
        report = pack.check(out, name)
        if report.ok:
            manifest = pack.build_manifest(out, name)
            with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
                f.write(pack.manifest_text(manifest))
            report = pack.check(out)  # with its manifest, as `voice check OUT` sees it
    except OSError as exc:
        raise DeviceIOError(
            "cannot write the pack into %s: %s" % (out, exc.strerror or exc)
        ) from None
    return report


def too_long(report, clips):
    """The too-long problems of a report, named by the clips' files: ["count_5.wav (5)
    900 ms, under 800 ms (...)"]."""
    files = {c.phrase: c.file for c in clips}
    out = []
    for problem in report.problems:
        if not problem.startswith("too long: "):
            continue
        said, rest = problem[len("too long: ") :].split(": ", 1)
        named = " + ".join(files.get(p, p) for p in said.split(" + "))
        out.append("%s (%s): %s" % (named, said, rest))
    return out
