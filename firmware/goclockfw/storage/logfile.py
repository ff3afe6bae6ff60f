"""One game log file on flash: find its last good record, repair a torn tail, count records.

Used at boot (a power cut may have left part of a record at the end) and
after a failed write. Damage inside a file is never repaired away: only what
follows the last record that checks is cut, so verify can still show the rest.
"""

import json

from goclockfw.storage.logline import check_line, claimed

_CHUNK = 256


def scan(fs, name):
    """(end, crc, records, size, newline) of a log file.

    end: bytes up to the end of the last good record; crc: its checksum;
    records: good records; size: the file's size (-1 when missing);
    newline: the last good record lacks only its newline.
    """
    size = fs.size(name)
    end = crc = records = pos = 0
    prev = 0
    newline = False
    if size <= 0:
        return 0, 0, 0, size, False
    try:
        with fs.open(name, "rb") as f:
            while True:
                ln = f.readline()
                if not ln:
                    break
                pos += len(ln)
                whole = ln[-1:] == b"\n"
                try:
                    _, prev = check_line(ln, prev, False)
                except ValueError:
                    if not whole:
                        break  # a torn tail: the write never finished
                    c = claimed(ln[:-1])
                    if c is not None:
                        prev = c
                    continue  # damage inside is kept for verify to show
                end, crc = pos, prev
                records += 1
                newline = not whole
    except OSError:
        pass
    return end, crc, records, size, newline


def cut(fs, name, size, tmp):
    """Keep only the first `size` bytes of `name` (copy to `tmp`, rename over).

    Raises OSError when there is no room for the copy; the file is then
    left as it was.
    """
    buf = bytearray(_CHUNK)
    with fs.open(name, "rb") as src:
        with fs.open(tmp, "wb") as dst:
            left = size
            while left > 0:
                n = src.readinto(buf)
                if not n:
                    break
                n = min(n, left)
                fs.write_prefix(dst, buf, n)
                left -= n
            dst.flush()
    fs.rename(tmp, name)


def end_line(fs, name):
    """Make the file end with a newline (a torn record then stands alone)."""
    with fs.open(name, "ab") as f:
        f.write(b"\n")


def repair(fs, name, tmp):
    """Cut what follows the last good record.

    Returns ((end, crc, records, old size), problem): None instead of the
    tuple when the file is missing; problem is None or what went wrong.
    """
    end, crc, records, size, newline = scan(fs, name)
    if size < 0:
        return None, None
    problem = None
    try:
        if end < size:
            try:
                cut(fs, name, end, tmp)
            except OSError:
                # No room to copy: end the torn line so the next record
                # starts on a line of its own and the chain still checks.
                end_line(fs, name)
                end = fs.size(name)
                raise
        elif newline:
            end_line(fs, name)  # the record is whole, only its newline is missing
            end += 1
    except OSError as e:
        problem = "could not repair %s: %s" % (name, e)
    return (end, crc, records, size), problem


def count_records(fs, name):
    """Lines in a log: from its "end" record when it has one, else by counting."""
    size = fs.size(name)
    if size <= 0:
        return 0
    try:
        with fs.open(name, "rb") as f:
            f.seek(max(0, size - 400))
            tail = f.read(400).rstrip(b"\n")
            last = tail[tail.rfind(b"\n") + 1 :]
            if claimed(last) is not None:
                try:
                    rec = json.loads(last[:-16].decode() + "}")
                    n = rec.get("records") if rec.get("event") == "end" else None
                    if isinstance(n, int) and not isinstance(n, bool):
                        return n
                except (ValueError, UnicodeError):
                    pass
            f.seek(0)
            n = 0
            buf = bytearray(_CHUNK)
            while True:
                k = f.readinto(buf)
                if not k:
                    break
                n += buf.count(b"\n") if k == len(buf) else bytes(buf[:k]).count(b"\n")
            return n
    except OSError:
        return 0
