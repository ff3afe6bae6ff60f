"""Byte work of the hot paths that allocates nothing: copies, fills, the records' checksum.

On MicroPython 1.25 (the rp2 and esp32 ports the clock ships on), `dst[a:b] = src[c:d]`
builds two slice objects on the heap, and `view[a:b]` a memoryview too: a few of those
in every record written and every line sent make a press allocate, and a loop pass that
writes a progress mark allocate. Here the copy is a viper loop over the two buffers'
bytes (bytes, bytearray or memoryview: any object with a buffer), called with plain ints.
On CPython (the tests, the tools) it is the slice assignment, which allocates nothing
that matters there.

    copy(dst, at, src, start, n)   dst[at:at + n] = src[start:start + n]  (no overlap)
    fill(dst, at, n, value)        dst[at:at + n] = bytes([value]) * n
    crc32(data, n, prev, out)      binascii.crc32(data[:n], P) -> out, where P and the
                                   result are kept as 4 bytes, little-endian (prev, out)
    seal(buf, n, prev, out) -> n'  a record line (storage/logline.py): crc32 of buf[:n]
                                   into out, then the closing brace replaced by
                                   `,"c":"<8 hex digits>"}` and a newline
    plain(data, i, j)              1 if data[i:j] is printable ASCII without a backslash
    filled(data, i, j, value)      1 if every byte of data[i:j] is `value` (an erased span)
    hash_of(data, i, j)            a 24-bit hash of data[i:j] (a small int)
    same(data, i, word, n)         1 if data[i:i + n] == word (bytes of n; a str's UTF-8)
    utf8_size(text, chars)         len(text[:chars].encode()) of a str, without the copy

A CRC-32 is a 32-bit value: as an int it is a long integer on a 32-bit port, and every
operation on it (`& 0xFFFFFFFF`, each shift of its eight hex digits) builds another one
on the heap, ~350 bytes a record. Kept in 4 bytes and computed by viper code with machine
words, it never becomes a Python int at all.
"""

from goclockfw.native import pick

# (The viper versions are in bytesops_viper.py, the plain ones in bytesops_py.py.)


def int_to4(c, out):
    """`out[0:4]` = the 32-bit value `c`, little-endian (not on a hot path: it allocates)."""
    for k in range(4):
        out[k] = (c >> (8 * k)) & 0xFF


def int_from4(buf):
    """The 32-bit value in `buf[0:4]`, little-endian (a long integer on a 32-bit port)."""
    return buf[0] | (buf[1] << 8) | (buf[2] << 16) | (buf[3] << 24)


_impl = pick("bytesops")  # goclockfw/native.py: viper code, or plain Python

copy = _impl.copy
fill = _impl.fill
crc32 = _impl.crc32
seal = _impl.seal
plain = _impl.plain
filled = _impl.filled
hash_of = _impl.hash_of
same = _impl.same
utf8_size = _impl.utf8_size
_impl = None
