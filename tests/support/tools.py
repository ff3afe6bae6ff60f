"""The project's tools/ scripts as modules, for the tests that run what a benchmark runs.

tools/ is not a package (its scripts are run as `python tools/x.py`), so they are loaded
here by file name; tools/ itself goes on sys.path because a script imports its siblings
by name, as it does when run from the command line.
"""

import importlib.util
import os

TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "tools")


def load(name):
    """tools/<name>.py as a module (its own imports of sibling tools resolve through here)."""
    return _load(name)


def _load(name):
    import sys

    if TOOLS not in sys.path:
        sys.path.append(TOOLS)  # tools/ scripts import their siblings by name (sim_demo...)
    spec = importlib.util.spec_from_file_location(name, os.path.join(TOOLS, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def use_rp2_tools():
    """Put tools/rp2 on sys.path: its modules (build, emu, layout, client) import each
    other by name, as they do when run as scripts."""
    import sys

    path = os.path.join(TOOLS, "rp2")
    if path not in sys.path:
        sys.path.insert(0, path)


bench_heap = _load("bench_heap")
