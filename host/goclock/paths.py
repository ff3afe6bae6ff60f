"""Where the host tool finds the parts of the project it uses from a checkout."""

import os

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def firmware_dir():
    """The firmware sources (the clock core is imported from here on CPython)."""
    return os.path.join(REPO_ROOT, "firmware")
