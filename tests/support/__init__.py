"""What the tests share: the real firmware session over a real littlefs flash, on CPython and
under the MicroPython unix port (flashfs, ports, cutflash; these three run on both), and
the CPython-only launchers (mpy: drivers under the unix port; lfs: littlefs-python).

The host's tests meet that firmware as a user's clock (CPython): vclock runs the board's
loop over the session in virtual time, clockline serves it on a pty that `goclock --port`
opens, linefaults breaks that line on request, games plays games on it.

The firmware (`goclockfw`) and the host tool (`goclock`) are installed in the project's
venv, pytest puts tests/ on the path, and pytest.ini puts the repository root there, so the
tools are the package `tools` (`from tools.rp2 import emu`): no test adds to sys.path.
"""
