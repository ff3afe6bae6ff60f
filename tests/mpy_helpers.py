"""Running driver scripts under the MicroPython unix port for the storage and protocol tests.

A driver is a small MicroPython program (a string in the test) that imports
the firmware modules (firmware/ and tests/ are on MICROPYPATH) and prints
JSON lines for the test to read.
"""

import json
import os
import subprocess

from conftest import FIRMWARE, REPO

TESTS = os.path.join(REPO, "tests")
ENV = dict(os.environ, MICROPYPATH=FIRMWARE + ":" + TESTS + ":.frozen")

# A RAM block device for os.VfsLfs2 (the extended block protocol), with an
# optional power cut: at write/erase operation number CUT the operation is
# done only in part, the image is saved to DUMP, a {"cut": n} line printed,
# and every later write is lost. (VfsLfs2 turns exceptions of the block
# device into EIO, so the process cannot simply exit from in there.)
RAMBD = """
import os, sys
class RAMBD:
    def __init__(self, bs, n, image=None, cut=0, dump=None, seed=1):
        self.bs = bs
        self.n = n
        self.data = bytearray(image) if image else bytearray(b"\\xff" * (bs * n))
        self.ops = 0
        self.cut = cut
        self.dump = dump
        self.rnd = seed
        self.dead = False
    def _rand(self, k):
        self.rnd = (self.rnd * 1103515245 + 12345) & 0x7FFFFFFF
        return self.rnd % k
    def _op(self):
        self.ops += 1
        return self.cut and self.ops >= self.cut
    def _die(self):
        self.dead = True
        f = open(self.dump, "wb")
        f.write(self.data)
        f.close()
        print('{"cut": %d}' % self.ops)
        raise OSError(5)
    def readblocks(self, b, buf, off=0):
        a = b * self.bs + off
        buf[:] = self.data[a:a + len(buf)]
    def writeblocks(self, b, buf, off=None):
        if self.dead:
            return
        if off is None:
            off = 0
            self.ioctl(6, b)
        a = b * self.bs + off
        if self._op():
            k = self._rand(len(buf) + 1)
            self.data[a:a + k] = buf[:k]
            self._die()
        self.data[a:a + len(buf)] = buf
    def ioctl(self, op, arg):
        if op == 4:
            return self.n
        if op == 5:
            return self.bs
        if op == 6:
            if self.dead:
                return 0
            a = arg * self.bs
            if self._op():
                for i in range(a, a + self.bs, 64):
                    if self._rand(2):
                        self.data[i:i + 64] = b"\\xff" * 64
                self._die()
            self.data[a:a + self.bs] = b"\\xff" * self.bs
            return 0
        return 0
"""


def driver_path(tmp_path, code, name="driver.py"):
    path = os.path.join(str(tmp_path), name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(code)
    return path


def run_mpy(micropython, tmp_path, code, *args, timeout=60, name="driver.py"):
    """Run `code` under MicroPython; returns (returncode, stdout lines, stderr text)."""
    path = driver_path(tmp_path, code, name)
    proc = subprocess.run(
        [micropython, path, *[str(a) for a in args]],
        capture_output=True,
        timeout=timeout,
        env=ENV,
        check=False,
    )
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    return proc.returncode, lines, proc.stderr.decode("utf-8", "replace")


def run_mpy_json(micropython, tmp_path, code, *args, timeout=60):
    """Run a driver that must succeed; its stdout lines parsed as JSON."""
    rc, lines, err = run_mpy(micropython, tmp_path, code, *args, timeout=timeout)
    assert rc == 0, "MicroPython driver failed:\n" + err + "\n".join(lines[-20:])
    return [json.loads(ln) for ln in lines if ln.strip()]
