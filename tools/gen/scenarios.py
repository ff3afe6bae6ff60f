"""Rewrite tests/scenarios/*.expected.jsonl from the current core.

Only after reading the diff: an expected file is a reviewed statement of what
the clock must do, not a snapshot to refresh blindly.

    .venv/bin/python -m tools.gen.scenarios [NAME ...]
"""

import io
import os
import sys

from goclock.cli import scenario

from .. import ROOT

SCENARIOS = os.path.join(ROOT, "tests", "scenarios")


def main(names):
    files = sorted(f[:-5] for f in os.listdir(SCENARIOS) if f.endswith(".json"))
    for name in names or files:
        out = io.BytesIO()
        scenario.run(os.path.join(SCENARIOS, name + ".json"), "cpython", out)
        with open(os.path.join(SCENARIOS, name + ".expected.jsonl"), "wb") as f:
            f.write(out.getvalue())
        print("wrote", name + ".expected.jsonl")


if __name__ == "__main__":
    main(sys.argv[1:])
