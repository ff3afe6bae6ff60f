"""The real firmware session for tests, on either engine: a fresh littlefs flash, test
board, virtual time (every method takes the tick; nothing reads a clock)."""

import json

from goclockfw.app.session import Session
from support.flashfs import flash_fs
from support.testboard import TestBoard


def make_session(
    flash=None, blocks=64, now=0, fresh=True, player=True, sounds=None, board=None, resume=True
):
    """A booted Session over `flash` (new when None; formatted when `fresh`), with the voice
    packs in `sounds` (default: the repository's); `board`: a TestBoard subclass; `resume`
    False: powered up with both player buttons held."""
    flash, fs = flash_fs(blocks, flash, fresh=fresh)
    board = (board or TestBoard)(fs, flash, sounds=sounds, player=player)
    return Session(board, now, resume=resume)


def notice_names(announcer):
    """{phrase: notice} of the announcer's voice pack ("暂停" -> "pause"): its notices table
    ("notice\tphrase" lines, app/announcer.py) read back."""
    out = {}
    for line in bytes(announcer.notices).decode().split("\n"):
        name, tab, phrase = line.partition("\t")
        if tab:
            out[phrase] = name
    return out


def reboot(session, now=0, resume=True):
    """The same flash booted again, as after a power cut or a reset."""
    return make_session(session.board.flash, now=now, fresh=False, resume=resume)


def out_lines(session):
    """The lines the session has queued for the serial line, taken (parsed JSON)."""
    out = session.out
    got = bytearray()
    while True:
        k = out.take()
        if not k:
            break
        got.extend(out.buf[out.head : out.head + k])
        out.sent(k)
    return [json.loads(x) for x in bytes(got).decode().split("\n") if x]


def snapshot(session):
    """Everything a request could change, as comparable JSON text."""
    st = session.commands.status()
    return json.dumps(
        [
            st,
            session.store.config,
            session.store.presets(),
            session.journal.list(),
            session.journal.current,
            session.protocol.watching,
        ]
    )
