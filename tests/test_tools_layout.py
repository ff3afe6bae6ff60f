"""tools/ is one package run as modules: every folder of it a package, no module reaching
its siblings through sys.path, and the Makefile running each tool with `python -m`."""

import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(REPO, "tools")


def _tool_files():
    for folder, dirs, files in os.walk(TOOLS):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", "patches")]
        for name in files:
            if name.endswith(".py"):
                yield os.path.relpath(os.path.join(folder, name), TOOLS).replace(os.sep, "/")


def test_every_tools_folder_is_a_package():
    for folder, dirs, files in os.walk(TOOLS):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", "patches")]
        if any(f.endswith(".py") for f in files):
            assert "__init__.py" in files, os.path.relpath(folder, REPO)


def test_no_tool_patches_sys_path():
    found = []
    for rel in _tool_files():
        with open(os.path.join(TOOLS, rel), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if re.search(r"sys\.path\.(insert|append)|sys\.path\s*=", line):
                    found.append("tools/%s:%d" % (rel, n))
    assert found == []


def test_the_makefile_runs_tools_as_modules():
    with open(os.path.join(REPO, "Makefile"), encoding="utf-8") as f:
        recipes = [line.strip() for line in f if line.startswith("\t")]
    by_path = [r for r in recipes if re.search(r"\btools/[\w/]+\.py\b", r)]
    assert by_path == []
    modules = set(re.findall(r"-m (tools(?:\.\w+)+)", " ".join(recipes)))
    assert {
        "tools.termclock",
        "tools.bench",
        "tools.rp2.build",
        "tools.voice.make_packs",
    } <= modules
    for module in modules:
        path = os.path.join(REPO, *module.split("."))
        assert os.path.isfile(path + ".py") or os.path.isfile(os.path.join(path, "__main__.py")), (
            module
        )
