"""The project's tools, run from the repository root as modules: `python -m tools.<group>.<tool>`.

    bench/      `make bench`: timing and memory figures (python -m tools.bench)
    termclock/  `make sim`: the clock in a terminal (python -m tools.termclock)
    rp2/        the real rp2 port on an emulated Pico (`make test-rp2`, `make measure-rp2`)
    voice/      the voice packs: generators (`make sounds`) and the listening test
    gen/        generated files: package.json, the scenarios' expected output
    hardware/   the wiring diagrams and the case (`make wiring`, `make case`)
    web/        the web app's benchmark (`make bench-web`)

The groups import each other as packages (`from tools.rp2 import emu`), never through
sys.path. Scripts that run on MicroPython (the benches' drivers, the rp2 probe) are run by
path, not imported.
"""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the repository
