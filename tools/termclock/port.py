"""A stable name for the simulated clock's serial line: `<flash dir>/serial`.

The pty behind the line gets a new number on every run (/dev/pts/5, then /dev/pts/7), so
an exported GOCLOCK_PORT would break each time. The terminal clock links `serial` in its
flash directory to the pty it has now (the flash directory is locked while it runs, so
only one clock at a time has that name) and removes the link when it stops: a goclock
command then says there is no such port, instead of talking to a stranger's pty.
"""

import os

NAME = "serial"


def link(flash, pty):
    """Point `<flash>/serial` at `pty` (replacing an old link at once); its path."""
    path = os.path.join(os.path.abspath(flash), NAME)
    fresh = path + ".new"
    if os.path.lexists(fresh):
        os.remove(fresh)
    os.symlink(pty, fresh)
    os.replace(fresh, path)
    return path


def unlink(path, pty):
    """Remove the link if it still points at `pty` (a later clock's link is left alone)."""
    try:
        if os.readlink(path) == pty:
            os.remove(path)
    except OSError:
        pass
