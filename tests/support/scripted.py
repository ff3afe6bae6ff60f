"""A host transport that answers from prepared lines, for the client's own logic.

The client's tests that need no clock at all (stale replies, ids, a silent line) give it a
list of lines to read; a callable in the list is called with the id of the last request,
so a reply can answer whatever id the client chose. What the client wrote is kept as text.
"""

import json

from goclock.errors import DeviceTimeout


class Script:
    def __init__(self, lines):
        self.lines = list(lines)
        self.written = []
        self.url = "script"

    @property
    def requests(self):
        """What the client asked, parsed (the bare newline that opens a line left out)."""
        return [json.loads(t) for t in self.written if t.strip()]

    def write_line(self, text):
        self.written.append(text)

    def read_line(self, timeout):
        if not self.lines:
            raise DeviceTimeout("silent")
        line = self.lines.pop(0)
        return line(self.requests[-1]["id"]) if callable(line) else line
