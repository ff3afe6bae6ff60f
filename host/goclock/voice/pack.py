"""Voice packs: what a pack must hold, how long each clip may be, and uploading one.

A pack is a folder of WAV clips plus `manifest.json`; the clock plays the clip of each phrase
its call profile says (see firmware/goclockfw/core/callplan.py) and of a few device notices. Used by
`goclock voice check DIR`, `goclock voice push DIR`, `goclock voice convert` (convert.py)
and tools/voice/make_packs.py.

Every clip must end before the next call can start: slot_rules() derives the limits by
running the profile itself over every period of 10-60 s and 1-10 periods, so a change to a
profile changes the limits with it.
"""

import json
import os
import re
import tempfile
import zlib

from goclockfw.core import callplan

from ..errors import GoclockError
from ..words import plural
from .clips import Clip, ClipError

# Which call profile each shipped pack speaks; a pack's manifest names its own.
PACK_PROFILES = {"zh": "cn", "ja": "jp", "en": "en"}

# What the device itself says, by notice; the keys are also the clips' file names.
DEVICE_PHRASES = {
    "cn": {
        "pause": "暂停",
        "resume": "继续",
        "power_resume": "断电恢复，对局已暂停",
        "battery_low": "电量低",
        "timeout_pass": "超时改判虚着",
        "reset": "重新开局",
        "cancel": "取消",
        "confirm": "再按确认",
        "late": "迟到登记",
        "late_marked": "已记迟到",
        "arrive": "到场",
        "maintenance": "维护模式",
    },
    "jp": {
        "pause": "一時停止",
        "resume": "再開",
        "power_resume": "電源復帰、対局は停止中",
        "battery_low": "電池残量低下",
        "timeout_pass": "時間切れはパス扱い",
        "reset": "リセット",
        "cancel": "取り消し",
        "confirm": "もう一度押して確定",
        "late": "遅刻の登録",
        "late_marked": "遅刻を記録",
        "arrive": "到着",
        "maintenance": "メンテナンス",
    },
    "en": {
        "pause": "paused",
        "resume": "resumed",
        "power_resume": "power restored, game paused",
        "battery_low": "battery low",
        "timeout_pass": "timeout ruled a pass",
        "reset": "new game",
        "cancel": "cancelled",
        "confirm": "again to confirm",
        "late": "who is late?",
        "late_marked": "late noted",
        "arrive": "arrived",
        "maintenance": "maintenance",
    },
}
_PRESET = {"cn": "预设%d", "jp": "プリセット%d", "en": "preset %d"}
PRESETS = 10

PERIODS_S = range(10, 61)  # periods the packs cover, whole seconds
MAX_PERIODS = 10
MARGIN_MS = 200  # a call ends at least this long before the next one starts
COUNT_MS = 800  # each count "1" ... "10" (the limit)
CALL_CAP_MS = 1800  # any call inside a period ("55秒", "58秒", P-5, P-2)
PERIOD_END_MS = 2000  # everything said as a period is used up ("1分" + "还剩4分")
START_MS = 1500  # the byo-yomi start call ("开始读秒")
FINAL_MS = 2500  # the last count and the loss on time ("10" + "超时判负")
DEVICE_MS = 3000  # device notices: not timed, but kept short
PACK_LIMIT_BYTES = 600 * 1000  # fits a Pico's flash beside the firmware and the logs
SAMPLE_RATES = (8000, 11025, 16000)
# The encodings a player reads (goclockfw/audio/wavhead.py decides): PCM, 8-bit unsigned
# or 16-bit signed, or IMA ADPCM in 256- or 512-byte blocks with a fact chunk.


def device_phrases(profile_name):
    """{notice: phrase} of the device notices for a profile, presets "preset_1".. included."""
    table = dict(DEVICE_PHRASES.get(profile_name, DEVICE_PHRASES["en"]))
    for n in range(1, PRESETS + 1):
        table["preset_%d" % n] = _PRESET.get(profile_name, _PRESET["en"]) % n
    return table


def load_profile(name):
    """The firmware's call profile object called `name` ("cn", "jp", "en")."""
    try:
        return callplan.profile(name)
    except ValueError as exc:
        raise GoclockError(str(exc)) from None


def call_phrases(profile):
    """Every phrase the profile can call for the periods and counts packs cover."""
    return callplan.phrases(profile, (PERIODS_S[0], PERIODS_S[-1]), MAX_PERIODS)


def required_phrases(profile):
    """Calls first, then device notices: every phrase a pack for `profile` needs."""
    out = list(call_phrases(profile))
    for phrase in sorted(device_phrases(profile.name).values()):
        if phrase not in out:
            out.append(phrase)
    return out


class SlotRule:
    """Phrases said back to back must together last less than `limit_ms`."""

    def __init__(self, phrases, limit_ms, why):
        self.phrases = tuple(phrases)
        self.limit_ms = limit_ms
        self.why = why

    def __repr__(self):
        return "SlotRule(%r, %d, %r)" % (self.phrases, self.limit_ms, self.why)


def _groups(offsets, phrases):
    """[(offset, [phrases said at that ms])] in spoken order."""
    out = []
    for at, phrase in zip(offsets, phrases):
        if out and out[-1][0] == at:
            out[-1][1].append(phrase)
        else:
            out.append((at, [phrase]))
    return out


def _sequence_rules(groups, upto, final_at, rules, cap_of):
    # One uninterrupted run of calls: each group said up to `upto` must end MARGIN_MS
    # before the next group starts; later groups only serve as "the next call".
    for i, (at, said) in enumerate(groups):
        if at > upto:
            break
        cap, why = cap_of(at)
        if i + 1 < len(groups):
            gap = groups[i + 1][0] - at
            if gap - MARGIN_MS < cap:
                cap, why = gap - MARGIN_MS, "the next call comes %d ms later" % gap
        elif at == final_at:
            cap, why = FINAL_MS, "the last call, with the loss on time"
        rules.append(SlotRule(said, cap, why))


def _period_rules(profile, period_ms, left, rules):
    offs, phr = profile.period_calls(period_ms, left)
    offs, phr = list(offs), list(phr)
    if left > 1:
        # The roll-over call must end before the next period's first call.
        o2, p2 = profile.period_calls(period_ms, left - 1)
        offs += [period_ms + o for o in o2]
        phr += list(p2)
    elif profile.timeout:
        offs.append(period_ms)
        phr.append(profile.timeout)

    def cap_of(at):
        if at == period_ms and left > 1:
            return PERIOD_END_MS, "said together as a period is used up"
        return CALL_CAP_MS, "a call within the period"

    final_at = period_ms if left == 1 else None
    _sequence_rules(_groups(offs, phr), period_ms, final_at, rules, cap_of)


def slot_rules(profile):
    """Every timing limit of `profile`: the tightest per group of phrases, tightest first."""
    rules = []
    for seconds in PERIODS_S:
        for left in range(1, MAX_PERIODS + 1):
            _period_rules(profile, seconds * 1000, left, rules)
    countdown = list(profile.countdown)
    if countdown:
        offs = [-before for before, _ in countdown]
        phr = [phrase for _, phrase in countdown]
        if profile.timeout:
            offs.append(0)
            phr.append(profile.timeout)
        cap = (CALL_CAP_MS, "a call before a loss on time")
        _sequence_rules(_groups(offs, phr), 0, 0, rules, lambda at: cap)
        for _, phrase in countdown:
            if phrase.isdigit():
                rules.append(SlotRule([phrase], COUNT_MS, "a count, one a second"))
    if profile.byoyomi_start:
        rules.append(SlotRule([profile.byoyomi_start], START_MS, "said as byo-yomi begins"))
    for phrase in device_phrases(profile.name).values():
        rules.append(SlotRule([phrase], DEVICE_MS, "a device notice"))
    covered = set()
    for rule in rules:
        covered.update(rule.phrases)
    for phrase in call_phrases(profile):
        if phrase not in covered:  # said at a moment of its own (an Ing penalty): a call's cap
            rules.append(SlotRule([phrase], CALL_CAP_MS, "a call"))
    tightest = {}
    for rule in rules:
        old = tightest.get(rule.phrases)
        if old is None or rule.limit_ms < old.limit_ms:
            tightest[rule.phrases] = rule
    return sorted(tightest.values(), key=lambda r: (r.limit_ms, r.phrases))


_NAME_PATTERNS = (
    (r"(\d+)", "count_%s"),
    (r"(\d+)秒", "sec_%s"),
    (r"(\d+) seconds", "sec_%s"),
    (r"(\d+)分", "min_%s"),
    (r"还剩(\d+)分", "left_min_%s"),
    (r"还剩(\d+)次", "left_times_%s"),
    (r"残り(\d+)回", "left_periods_%s"),
    (r"(\d+) periods left", "left_periods_%s"),
    (r"last period", "left_periods_1"),
    (r"共罚(\d+)点", "penalty_%s"),
    (r"ペナルティ(\d+)目", "penalty_%s"),
    (r"(\d+) penalty points?", "penalty_%s"),
)


def file_name(phrase, profile):
    """The ASCII file name a pack uses for `phrase` (e.g. "还剩4分" -> "left_min_4.wav")."""
    if phrase == profile.byoyomi_start:
        return "byoyomi_start.wav"
    if phrase == profile.timeout:
        return "timeout.wav"
    for notice, said in device_phrases(profile.name).items():
        if said == phrase:
            return notice + ".wav"
    for pattern, name in _NAME_PATTERNS:
        m = re.fullmatch(pattern, phrase)
        if m:
            return (name % m.group(1) if m.groups() else name) + ".wav"
    return "phrase_%08x.wav" % zlib.crc32(phrase.encode("utf-8"))


class Report:
    """The result of check(): problems make a pack unusable, notes do not."""

    def __init__(self, pack_dir, profile_name):
        self.pack_dir = pack_dir
        self.profile = profile_name
        self.problems = []
        self.notes = []
        self.clips = {}  # phrase -> Clip
        self.files = {}  # phrase -> file name
        self.named = set()  # every file a phrase names, usable or not
        self.total_bytes = 0

    @property
    def ok(self):
        return not self.problems

    def lines(self):
        """The report as lines of text for the terminal."""
        head = "%s: %s, %d bytes, profile %s" % (
            self.pack_dir,
            plural(len(self.clips), "clip"),
            self.total_bytes,
            self.profile,
        )
        out = [head]
        out += ["problem: " + p for p in self.problems]
        out += ["note: " + n for n in self.notes]
        out.append("ok" if self.ok else plural(len(self.problems), "problem"))
        return out


def read_manifest(pack_dir):
    """The pack's manifest.json as a dict, None when there is none; GoclockError when bad."""
    path = os.path.join(pack_dir, "manifest.json")
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise GoclockError("%s: unreadable manifest: %s" % (path, exc)) from None
    if not isinstance(data, dict) or not isinstance(data.get("phrases"), dict):
        raise GoclockError('%s: a manifest is an object with a "phrases" object' % path)
    return data


def check(pack_dir, profile_name=None):
    """Check a pack folder: missing phrases, bad formats, clips too long for their slot.

    `profile_name` ("cn", "jp", "en") defaults to the manifest's "profile", else to the
    folder's name (zh -> cn, ja -> jp, en -> en), else "cn". The folder needs no manifest:
    clips are then found by their standard names (file_name()). Returns a Report;
    raises GoclockError only when the folder or its manifest cannot be read at all.
    """
    if not os.path.isdir(pack_dir):
        raise GoclockError("%s is not a folder" % pack_dir)
    manifest = read_manifest(pack_dir)
    name = os.path.basename(os.path.normpath(pack_dir))
    if profile_name is None:
        profile_name = (manifest or {}).get("profile") or PACK_PROFILES.get(name, "cn")
    profile = load_profile(profile_name)
    report = Report(pack_dir, profile_name)
    if manifest is None and not any(f.lower().endswith(".wav") for f in os.listdir(pack_dir)):
        # Said once, not as one "missing" line for each of the profile's phrases.
        report.problems.append(
            "the folder has no clips (no .wav files): record one per phrase, named as in the "
            "README (count_1.wav, sec_30.wav, ...)"
        )
        return report
    entries = manifest["phrases"] if manifest else {}
    formats = {}  # format key -> its description
    for phrase in required_phrases(profile):
        entry = entries.get(phrase)
        if manifest is not None and not isinstance(entry, dict):
            report.problems.append("missing: %s (not in manifest.json)" % phrase)
            continue
        fname = entry.get("file") if entry else file_name(phrase, profile)
        path = os.path.join(pack_dir, str(fname))
        if not os.path.isfile(path):
            report.problems.append("missing: %s (no file %s)" % (phrase, fname))
            continue
        report.named.add(fname)  # a bad clip is a problem of its own, not an unused file
        try:
            clip = Clip(path)
        except ClipError as exc:
            report.problems.append("bad format: %s: %s" % (fname, exc))
            continue
        bad = format_problem(clip)
        if bad:
            report.problems.append("bad format: %s: %s" % (fname, bad))
            continue
        formats[clip.format_key()] = clip.describe()
        report.clips[phrase] = clip
        report.files[phrase] = fname
        if entry:
            _compare_entry(report, phrase, entry, clip)
    if len(formats) > 1:
        found = ", ".join(formats[k] for k in sorted(formats))
        report.problems.append("bad format: the clips mix formats (%s): use one for all" % found)
    _check_slots(report, profile)
    _size_and_extras(report, pack_dir)
    return report


def _check_slots(report, profile):
    """The clips said in one slot together against its limit (`slot_rules`: a call must
    end before the next one is due)."""
    for rule in slot_rules(profile):
        if all(p in report.clips for p in rule.phrases):
            total = sum(report.clips[p].duration_ms for p in rule.phrases)
            if total >= rule.limit_ms:
                report.problems.append(
                    "too long: %s: %d ms, must be under %d ms (%s)"
                    % (" + ".join(rule.phrases), total, rule.limit_ms, rule.why)
                )


def format_problem(clip):
    """Why the clock cannot play this (readable) clip, or None."""
    if clip.sample_rate not in SAMPLE_RATES:
        rates = ", ".join(str(r) for r in SAMPLE_RATES)
        return "%d Hz: must be one of %s Hz" % (clip.sample_rate, rates)
    if clip.frames == 0:
        return "no sound in it"
    return None


def _compare_entry(report, phrase, entry, clip):
    for key, actual in (
        ("duration_ms", clip.duration_ms),
        ("sample_rate", clip.sample_rate),
        ("crc32", clip.crc32),
    ):
        if key in entry and entry[key] != actual:
            report.problems.append(
                "manifest: %s: %s is %r, the file says %r" % (phrase, key, entry[key], actual)
            )


def _size_and_extras(report, pack_dir):
    total = sum(c.size for c in report.clips.values())
    manifest_path = os.path.join(pack_dir, "manifest.json")
    if os.path.exists(manifest_path):
        total += os.path.getsize(manifest_path)
    report.total_bytes = total
    if total > PACK_LIMIT_BYTES:
        pcm = any(c.encoding == "pcm" for c in report.clips.values())
        report.problems.append(
            "too big: %d bytes, at most %d: trim the silence%s"
            % (
                total,
                PACK_LIMIT_BYTES,
                ", or convert the clips to IMA ADPCM (sox in.wav -r 16000 -e ima-adpcm out.wav)"
                if pcm
                else ", or speak faster",
            )
        )
    for fname in sorted(os.listdir(pack_dir)):
        if fname.lower().endswith(".wav") and fname not in report.named:
            report.notes.append("%s is not used by any phrase" % fname)


def build_manifest(pack_dir, profile_name=None):
    """The manifest of a checked pack folder (a dict, JSON-ready); GoclockError when not ok.

    The pack's name is the one of its current manifest, else the folder's name."""
    report = check(pack_dir, profile_name)
    if not report.ok:
        shown = report.problems[:12]
        if len(report.problems) > len(shown):
            shown.append("... and %d more" % (len(report.problems) - len(shown)))
        raise GoclockError("%s is not a usable pack:\n  %s" % (pack_dir, "\n  ".join(shown)))
    old = read_manifest(pack_dir) or {}
    first = next(iter(report.clips.values()))  # every clip has its format (check says so)
    phrases = {}
    for phrase, clip in report.clips.items():
        # No rate per phrase: a pack has one (check refuses a mix), said once below.
        phrases[phrase] = {
            "file": report.files[phrase],
            "duration_ms": clip.duration_ms,
            "crc32": clip.crc32,
        }
    manifest = {
        "format": 1,
        "pack": old.get("pack") or os.path.basename(os.path.normpath(pack_dir)),
        "profile": report.profile,
        "sample_rate": first.sample_rate,
        "encoding": first.encoding,
        "device": device_phrases(report.profile),
        "phrases": phrases,
    }
    if first.encoding == "pcm":
        manifest["sample_width"] = first.sample_width
    else:
        manifest["block_align"] = first.block_align
        manifest["samples_per_block"] = first.samples_per_block
    return manifest


def manifest_text(manifest):
    """Stable JSON text: sorted keys, one phrase a line, so regenerated packs diff cleanly;
    no spaces inside a phrase's entry: the manifest counts toward the pack's 600 KB, and
    the clock reads it whole (app/announcer.py) into a heap of a few hundred KB."""
    mark = "\0phrases\0"
    text = json.dumps(dict(manifest, phrases=mark), ensure_ascii=False, indent=1, sort_keys=True)
    entries = [
        " %s:%s"
        % (
            json.dumps(phrase, ensure_ascii=False),
            json.dumps(entry, ensure_ascii=False, sort_keys=True, separators=(",", ":")),
        )
        for phrase, entry in sorted(manifest["phrases"].items())
    ]
    block = "{\n" + ",\n".join(entries) + "\n }" if entries else "{}"
    return text.replace(json.dumps(mark), block) + "\n"


# The pack as the clock holds it: every clip in one file, each phrase's entry giving where
# its clip's samples start and how many there are. A clip is then found by a seek in a file
# the player keeps open, its header already read here: opening a file on the RP2040's
# littlefs takes 2.6-5 ms (its folder searched by name) and parsing a WAV header 0.7 ms,
# a seek in an open one 0.02 ms (tools/rp2/README.md).
CLIPS_FILE = "clips.bin"


def device_pack(pack_dir, out_dir, profile_name=None):
    """Write the pack as the clock holds it into `out_dir`: CLIPS_FILE (the clips' WAV
    files, each once, one after the other) and manifest.json (the checked manifest, with
    "clips" naming that file, each phrase's "at", the byte where its clip's samples start
    in it, and "frames", how many samples it has; every clip has the format the manifest
    gives: `check` refuses a mix).
    Returns (manifest, [local paths]) with the clips' file first; GoclockError (nothing
    written) when the pack is not usable."""
    manifest = build_manifest(pack_dir, profile_name)
    placed = {}
    clips_path = os.path.join(out_dir, CLIPS_FILE)
    with open(clips_path, "wb") as out:
        for fname in sorted(set(entry["file"] for entry in manifest["phrases"].values())):
            path = os.path.join(pack_dir, fname)
            clip = Clip(path)
            placed[fname] = (out.tell() + clip.data_offset, clip.frames)
            with open(path, "rb") as f:
                out.write(f.read())
            if out.tell() & 1:  # each clip starts on an even byte, as a RIFF chunk would
                out.write(b"\0")
    manifest["clips"] = CLIPS_FILE
    for entry in manifest["phrases"].values():
        entry["at"], entry["frames"] = placed[entry["file"]]
    manifest_path = os.path.join(out_dir, "manifest.json")
    with open(manifest_path, "w", encoding="utf-8") as f:
        f.write(manifest_text(manifest))
    return manifest, [clips_path, manifest_path]


def push(pack_dir, put_file, mkdir=None, remote_dir=None, progress=None, profile_name=None):
    """Upload a voice pack to the clock over an already-open connection.

    - `pack_dir`: the pack folder; it is checked first (GoclockError listing the problems
      when it is not usable). A folder without manifest.json gets one made on the fly.
    - `put_file(local_path, remote_path)`: copies one file to the clock's flash (e.g. an
      `mpremote fs cp` or a raw-REPL transfer); it raises on failure.
    - `mkdir(remote_path)`: optional; creates a folder on the clock, ignoring "exists".
    - `remote_dir`: default "/sounds/<pack>", where <pack> is the manifest's "pack" (or the
      folder's name): the name the clock's config "voice" selects.
    - `progress(done, total, remote_path)`: optional, called after every file.
    - `profile_name`: as for check(); needed for a folder with no manifest whose name is
      not zh, ja or en.

    The clock gets the pack's device form (`device_pack`): its clips in one file, then
    manifest.json, last, so a pack cut off half way has no new manifest pointing into a
    clips file that is not all there. Returns the list of remote paths written.
    """
    with tempfile.TemporaryDirectory() as tmp:
        manifest, local = device_pack(pack_dir, tmp, profile_name)
        remote_dir = (remote_dir or "/sounds/%s" % manifest["pack"]).rstrip("/")
        if mkdir:
            parts = remote_dir.strip("/").split("/")
            for i in range(1, len(parts) + 1):
                mkdir("/" + "/".join(parts[:i]))
        written = []
        for path in local:
            remote = remote_dir + "/" + os.path.basename(path)
            put_file(path, remote)
            written.append(remote)
            if progress:
                progress(len(written), len(local), remote)
    return written
