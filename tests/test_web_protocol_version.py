"""The web pages speak the firmware's protocol version: a bump in one is a bump in both."""

import re
from pathlib import Path

from goclockfw.protocol.commands import PROTOCOL_VERSION

ROOT = Path(__file__).resolve().parent.parent


def test_the_pages_check_the_firmwares_protocol_version():
    js = (ROOT / "web/src/js/link/clocklink.js").read_text(encoding="utf-8")
    found = re.findall(r"^export const PROTOCOL = (\d+);", js, re.M)
    assert found == [str(PROTOCOL_VERSION)]
