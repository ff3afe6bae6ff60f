"""One writer of time controls for the clock's preset menu and the host's notation
(firmware/goclockfw/app/tctext.py): the factory presets read at the board as the README
writes them, and the unix port writes what CPython writes."""

import json

from conftest import run_micropython
from goclock.timecontrol import notation
from goclockfw.app import tctext
from goclockfw.storage.configcheck import default_presets

WRITTEN = [
    "cn 2h/5",
    "cn 1h/1",
    "byo 30m+3x30s",
    "byo 10m+3x30s",
    "byo 0+5x10s",
    "sd 1h",
    "can 1h+15/10m carry",
    "can 1h+25/5m",
    "fischer 20m+10s",
    "ing 3h+3x20m",
]
MORE = [
    "byo 1h+5x60s",
    "byo 10s+2x60s",
    "byo 20m+0",
    "byo 1h+5x3m",
    "fischer 5m+10s max 10m",
    "bronstein 0+30s",
    "delay 5m+3s",
    "hourglass 5m",
    "untimed",
    "ing 3h+3x20m penalty=1",
    "sd 1.5s calls=none",
    "sd 1h30m30s",
]


def test_the_factory_presets_read_as_the_readme_writes_them():
    assert [tctext.text(p["time_control"]) for p in default_presets()] == WRITTEN


def test_the_unix_port_writes_what_cpython_writes(micropython, tmp_path):
    tcs = [p["time_control"] for p in default_presets()] + [notation.parse(t) for t in MORE]
    data = tmp_path / "tcs.json"
    data.write_text(json.dumps(tcs))
    script = tmp_path / "write.py"
    script.write_text(
        "import json, sys\n"
        "from goclockfw.app import tctext\n"
        "for tc in json.loads(open(sys.argv[1]).read()):\n"
        "    print(tctext.text(tc))\n"
    )
    proc = run_micropython(micropython, str(script), str(data))
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode().splitlines() == [tctext.text(tc) for tc in tcs]
    # ... and what the host's notation writes before its options.
    base = [t.split(" calls=")[0] for t in WRITTEN + MORE]
    assert [notation.format(tc).split(" calls=")[0] for tc in tcs] == base
