"""`python -m goclock.cli`: the `goclock` command."""

import sys

from . import main

sys.exit(main())
