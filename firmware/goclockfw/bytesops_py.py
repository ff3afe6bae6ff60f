"""bytesops.py's functions in plain Python: for CPython (the tests, the tools) and for a
MicroPython built without native code (the browser's webassembly port). The chips run
bytesops_viper.py; this module is then never imported, and its bytecode takes no heap."""

import binascii


def copy(dst, at, src, start, n):
    dst[at : at + n] = src[start : start + n]


def fill(dst, at, n, value):
    dst[at : at + n] = bytes((value,)) * n


def seal(buf, n, prev, out):
    crc32(buf, n, prev, out)
    c = out[0] | out[1] << 8 | out[2] << 16 | out[3] << 24
    tail = b',"c":"%08x"}\n' % c
    buf[n - 1 : n - 1 + len(tail)] = tail
    return n - 1 + len(tail)


def crc32(data, n, prev, out):
    c = binascii.crc32(bytes(data[:n]), int.from_bytes(bytes(prev[:4]), "little"))
    out[0:4] = (c & 0xFFFFFFFF).to_bytes(4, "little")


def plain(data, i, j):
    for k in range(i, j):
        c = data[k]
        if c < 0x20 or c >= 0x80 or c == 0x5C:
            return 0
    return 1


def filled(data, i, j, value):
    return 1 if all(data[k] == value for k in range(i, j)) else 0


def hash_of(data, i, j):
    h = 0
    for k in range(i, j):
        h = (h * 31 + data[k]) & 0xFFFFFF
    return h


def same(data, i, word, n):
    if isinstance(word, str):
        word = word.encode()
    return 1 if bytes(data[i : i + n]) == bytes(word[:n]) else 0


def utf8_size(text, chars):
    return len(text[:chars].encode())
