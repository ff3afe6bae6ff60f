"""`make sim` locks its flash directory: a second terminal clock on it stops with a clear message."""

import os
import sys

import pytest

from goclock import unixport
from tools.termclock import __main__ as termclock


def test_second_sim_on_the_same_flash_is_refused(tmp_path):
    flash = str(tmp_path / "flash")
    first = unixport.lock_flash(flash)
    try:
        with pytest.raises(unixport.FlashBusy) as exc:
            unixport.lock_flash(flash)
        assert str(exc.value) == (
            "another simulated clock (pid %d) is using the flash directory %s: stop it first, "
            "or give this one its own with --flash DIR" % (os.getpid(), flash)
        )
        other = unixport.lock_flash(str(tmp_path / "other"))  # another directory is free
        other.close()
    finally:
        first.close()
    unixport.lock_flash(flash).close()  # free again once the first has gone


def test_main_stops_with_the_message(tmp_path, monkeypatch):
    flash = str(tmp_path / "flash")
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    held = unixport.lock_flash(flash)
    try:
        with pytest.raises(SystemExit) as exc:
            termclock.main(["--flash", flash])  # what `make sim` runs
        assert str(exc.value).startswith("sim: another simulated clock (pid")
    finally:
        held.close()
