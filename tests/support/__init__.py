"""What the tests share: the real firmware session over a real littlefs flash, on CPython and
under the MicroPython unix port (flashfs, ports, cutflash; these three run on both), and
the CPython-only launchers (mpy: drivers under the unix port; lfs: littlefs-python).

Nothing here patches sys.path: the firmware (`goclockfw`) and the host tool (`goclock`)
are installed in the project's venv, and pytest puts tests/ on the path.
"""
