"""Copy bytes between buffers without allocating: the hot paths' slice assignments.

On MicroPython 1.25 (the rp2 and esp32 ports the clock ships on), `dst[a:b] = src[c:d]`
builds two slice objects on the heap, and `view[a:b]` a memoryview too: a few of those
in every record written and every line sent make a press allocate, and a loop pass that
writes a progress mark allocate. Here the copy is a viper loop over the two buffers'
bytes (bytes, bytearray or memoryview: any object with a buffer), called with plain ints.
On CPython (the tests, the tools) it is the slice assignment, which allocates nothing
that matters there.

    copy(dst, at, src, start, n)   dst[at:at + n] = src[start:start + n]  (no overlap)
    fill(dst, at, n, value)        dst[at:at + n] = bytes([value]) * n
"""

try:
    import micropython
except ImportError:  # CPython
    micropython = None


def _copy_py(dst, at, src, start, n):
    dst[at : at + n] = src[start : start + n]


def _fill_py(dst, at, n, value):
    dst[at : at + n] = bytes((value,)) * n


if micropython is not None:
    # The decorator must be spelled out: MicroPython's compiler recognises it by name.
    @micropython.viper
    def _copy_viper(dst, at: int, src, start: int, n: int):
        d = ptr8(dst)  # noqa: F821 (a viper builtin)
        s = ptr8(src)  # noqa: F821
        i = 0
        while i < n:
            d[at + i] = s[start + i]
            i += 1

    @micropython.viper
    def _fill_viper(dst, at: int, n: int, value: int):
        d = ptr8(dst)  # noqa: F821
        i = at
        end = at + n
        while i < end:
            d[i] = value
            i += 1

    copy = _copy_viper
    fill = _fill_viper
else:
    copy = _copy_py
    fill = _fill_py
