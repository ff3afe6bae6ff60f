"""The project as it is installed and deployed: the package list, the frozen manifest, and
the host tool installed from the repository, run from somewhere else.

pyproject.toml lists the firmware's subpackages one by one (a package-dir mapping cannot be
searched), boards/manifest.py freezes the package for a custom MicroPython image, and
`goclock deploy` copies it as .mpy files: all three must name the same modules, or a board
gets a firmware with a piece missing. Then the tool is installed (pip, no editable link)
into a folder of its own and run from a folder outside the checkout, as a user who did
`pipx install` would: it must find its firmware, board files and voice packs in what pip
installed.
"""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest
import tomllib

from goclock import firmware as deploy
from support.recordings import record_pack

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(REPO, "firmware")
HOST = os.path.join(REPO, "host")


def _packages(root, name):
    """The dotted names of the packages (folders with an __init__.py) under root/name."""
    out = []
    for folder, dirs, files in os.walk(os.path.join(root, name)):
        dirs[:] = [d for d in dirs if d != "__pycache__" and d != "data"]
        if "__init__.py" in files:
            out.append(os.path.relpath(folder, root).replace(os.sep, "."))
    return sorted(out)


def _data_packages():
    """goclock.data and every folder under it (the links to boards/ and sounds/ followed):
    setuptools can import each, so each must be listed or it warns."""
    data = os.path.join(HOST, "goclock", "data")
    out = []
    for folder, dirs, _files in os.walk(data, followlinks=True):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        out.append(os.path.relpath(folder, HOST).replace(os.sep, "."))
    return sorted(out)


def _setuptools():
    with open(os.path.join(REPO, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def test_pyproject_lists_every_package():
    config = _setuptools()["tool"]["setuptools"]
    listed = config["packages"]
    assert sorted(p for p in listed if p.startswith("goclockfw")) == _packages(
        FIRMWARE, "goclockfw"
    )
    host = _packages(HOST, "goclock") + _data_packages()
    assert sorted(p for p in listed if p.split(".")[0] == "goclock") == sorted(host)
    # Each data folder ships its files: the board files, every file of a pack.
    data = config["package-data"]
    assert data["goclock.data.boards"] == ["*.json"]
    packs = [p for p in host if p.startswith("goclock.data.sounds.")]
    assert packs and all(data.get(p) == ["*"] for p in packs)


# The licences the packs name in their LICENSE, as SPDX identifiers.
SPDX = {
    "Apache License 2.0": "Apache-2.0",
    "MIT": "MIT",
    "CC0": "CC0-1.0",
    "CC BY 4.0": "CC-BY-4.0",
}


def test_the_licence_expression_names_every_shipped_licence():
    project = _setuptools()["project"]
    named = set(project["license"].split(" AND "))
    assert "MIT" in named  # LICENSE: the code
    for pack in sorted(os.listdir(os.path.join(REPO, "sounds"))):
        with open(os.path.join(REPO, "sounds", pack, "LICENSE"), encoding="utf-8") as f:
            text = f.read()
        found = [spdx for name, spdx in SPDX.items() if "licence: " + name in text]
        assert found, "sounds/%s/LICENSE: which licence? (add it to SPDX here)" % pack
        assert set(found) <= named, "pyproject's license does not name %s" % found
    assert "LICENSE" in project["license-files"]
    assert "sounds/*/LICENSE" in project["license-files"]


def _frozen_by_manifest():
    """The files boards/manifest.py freezes, by running it with makemanifest's functions."""
    frozen = []

    def package(name, files=None, base_path="."):
        frozen.extend(os.path.join(name, f).replace(os.sep, "/") for f in files)

    code = open(os.path.join(REPO, "boards", "manifest.py")).read()
    here = os.getcwd()
    os.chdir(os.path.join(REPO, "boards"))  # makemanifest runs a manifest from its folder
    try:
        exec(compile(code, "manifest.py", "exec"), {"include": lambda p: None, "package": package})
    finally:
        os.chdir(here)
    return sorted(frozen)


def test_the_frozen_manifest_freezes_what_deploy_copies():
    copied = set()
    for family in deploy.ARCH:
        copied.update("goclockfw/" + rel for _src, rel in deploy.package_files(family))
    assert _frozen_by_manifest() == sorted(copied)
    assert not [f for f in copied if "/desktop/" in f or "/scenario/" in f]


def test_the_board_modules_need_no_assert_which_the_deploy_leaves_out():
    """`goclock deploy` compiles with mpy-cross -O3 (goclock/firmware.py OPT), which leaves
    out every `assert` and makes __debug__ False: a board module must rely on neither."""
    import ast

    assert deploy.OPT == "-O3"
    found = []
    for family in deploy.ARCH:
        for src, rel in deploy.package_files(family):
            with open(src, encoding="utf-8") as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.Assert) or (
                    isinstance(node, ast.Name) and node.id == "__debug__"
                ):
                    found.append("%s:%d" % (rel, node.lineno))
    assert found == []


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The project pip-installed (not editable) into a folder; (python env, a cwd outside)."""
    target = tmp_path_factory.mktemp("site")
    build = tmp_path_factory.mktemp("build")
    # From a copy of what a clone holds: setuptools builds in the project's build/, where an
    # older layout's modules would linger and be installed too.
    source = build / "goclock"
    for name in ("host", "firmware", "boards", "sounds"):
        shutil.copytree(os.path.join(REPO, name), source / name, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(os.path.join(REPO, name), source / name)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(source)],
        capture_output=True, text=True, env=dict(os.environ, TMPDIR=str(build)),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    # setuptools' complaints (a licence table, a folder left out of `packages`) are a
    # packaging mistake, even though the install goes through.
    assert "Warning:" not in proc.stderr, proc.stderr
    env = dict(os.environ, PYTHONPATH=str(target))  # dependencies: this venv's
    return env, str(tmp_path_factory.mktemp("elsewhere")), str(target)


def _goclock(installed, *args):
    env, cwd, _ = installed
    return subprocess.run(
        [sys.executable, "-c", "import sys, goclock.cli; sys.exit(goclock.cli.main())", *args],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=120,
    )  # fmt: skip


def test_installed_tool_is_the_installed_copy(installed):
    env, cwd, target = installed
    out = subprocess.run(
        [sys.executable, "-c", "import goclock, goclockfw; print(goclock.__file__, goclockfw.__file__)"],
        capture_output=True, text=True, env=env, cwd=cwd,
    ).stdout.split()  # fmt: skip
    assert out and all(p.startswith(target) for p in out)


def test_installed_tool_runs_outside_the_checkout(installed):
    from goclockfw import VERSION

    r = _goclock(installed, "--version")
    assert r.returncode == 0 and VERSION in r.stdout

    scenario = os.path.join(installed[1], "game.json")
    with open(scenario, "w") as f:
        f.write('{"time_control": {"type": "sudden_death", "main": 10}, '
                '"events": [{"t": 0, "do": "start"}], "until": 12000}')  # fmt: skip
    r = _goclock(installed, "simulate", scenario)
    assert r.returncode == 0, r.stderr
    assert '{"event":"timeout","t":10000,"side":"black"}' in r.stdout

    r = _goclock(installed, "config", "set", "cn", "2h/5", "--dry-run")
    assert r.returncode == 0 and "cn 2h/5" in r.stdout, r.stderr

    r = _goclock(installed, "voice", "check", "zh")  # a shipped pack, by its name
    assert r.returncode == 0, r.stdout + r.stderr
    r = _goclock(installed, "voice", "check", "xx")
    assert r.returncode == 2 and "shipped: en, ja, zh" in r.stderr

    # Recordings into a pack: the converter needs nothing beyond the package itself.
    takes = os.path.join(installed[1], "takes")
    record_pack(pathlib.Path(takes), "en")
    pack = os.path.join(installed[1], "mine")
    r = _goclock(installed, "voice", "convert", takes, pack)
    assert r.returncode == 0 and "profile en" in r.stdout, r.stdout + r.stderr
    r = _goclock(installed, "voice", "check", pack)
    assert r.returncode == 0, r.stdout + r.stderr

    r = _goclock(installed, "deploy", "--board", "pico", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert ":/lib/goclockfw/app/session.mpy" in r.stdout and ":/board.json" in r.stdout
    assert installed[2] in r.stdout  # the board file and the pack from what pip installed


def test_package_json_is_current_and_mip_installs_a_working_package(tmp_path, micropython):
    """mpremote's own mip code installs package.json (relative URLs) into a board's /lib;
    the modules it writes are the package, and they run under the MicroPython unix port."""
    from mpremote import mip

    from tools.gen import package_json

    with open(os.path.join(REPO, "package.json"), encoding="utf-8") as f:
        stale = "package.json is stale: python -m tools.gen.package_json"
        assert f.read() == package_json.text(), stale

    board = tmp_path / "board"

    class Transport:  # the board's file system, as mpremote's transport offers it
        def fs_exists(self, path):
            return (board / path.lstrip("/")).exists()

        def fs_mkdir(self, path):
            (board / path.lstrip("/")).mkdir()

        def fs_writefile(self, path, data, progress_callback=None):
            (board / path.lstrip("/")).write_bytes(data)

    board.mkdir()
    here = os.getcwd()
    os.chdir(REPO)  # the URLs are relative to package.json, as in a checkout
    try:
        mip._install_json(Transport(), "package.json", None, "/lib", None, True)
    finally:
        os.chdir(here)
    written = sorted(
        os.path.relpath(os.path.join(d, n), board / "lib").replace(os.sep, "/")
        for d, _dirs, names in os.walk(board / "lib")
        for n in names
    )
    assert written == _frozen_by_manifest()

    out = subprocess.run(
        [micropython, "-c",
         "from goclockfw.core.timecontrol import parse; from goclockfw.app.session import Session;"
         "print(parse({'type': 'sudden_death', 'main': 60}).kind)"],
        capture_output=True, text=True, env=dict(os.environ, MICROPYPATH=str(board / "lib")),
        cwd=str(tmp_path), timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip()
