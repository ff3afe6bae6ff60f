"""The Debian tools the hardware files are made with, installed with apt-get when missing.

openscad renders the case (hardware/case.scad) to an STL and a preview; rsvg-convert
(librsvg2-bin) turns the wiring SVGs into PNGs; xvfb-run (xvfb) gives openscad the
X display its PNG export needs on a machine without one. `make hardware-tools` and the
tests call `ensure`: as root (CI) the packages are installed, otherwise the missing
ones are named with the command that installs them.

    python -m tools.hardware.debian [--check]
"""

import argparse
import os
import shutil
import subprocess
import sys

# command -> the Debian package that has it
PACKAGES = {"openscad": "openscad", "rsvg-convert": "librsvg2-bin", "xvfb-run": "xvfb"}


def missing(commands=tuple(PACKAGES)):
    return [c for c in commands if shutil.which(c) is None]


def install_hint(commands):
    return "apt-get install --no-install-recommends %s" % " ".join(
        sorted({PACKAGES[c] for c in commands})
    )


def ensure(commands=tuple(PACKAGES), install=True, log=print):
    """Install the packages of the missing `commands` (root only). Returns what is
    still missing afterwards: [] when every command is there."""
    lack = missing(commands)
    if not lack or not install or os.geteuid() != 0 or shutil.which("apt-get") is None:
        return lack
    packages = sorted({PACKAGES[c] for c in lack})
    log("[hardware] installing %s (missing: %s)" % (" ".join(packages), ", ".join(lack)))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        subprocess.run(["apt-get", "update"], check=True, env=env, stdout=subprocess.DEVNULL)
        subprocess.run(
            ["apt-get", "install", "-y", "--no-install-recommends", *packages],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
        )
    except (OSError, subprocess.CalledProcessError) as e:
        log("[hardware] apt-get failed: %s" % e)
    return missing(commands)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.hardware.debian", description=__doc__)
    ap.add_argument("--check", action="store_true", help="only say what is missing")
    args = ap.parse_args(argv)
    lack = ensure(install=not args.check)
    if lack:
        print("[hardware] missing %s: %s" % (", ".join(lack), install_hint(lack)))
        return 1
    print("[hardware] %s: all there" % ", ".join(PACKAGES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
