"""/boot.py of the test layouts (never deployed): loads the probe, goclock_probe.py.

The firmware modules the probe patches are imported first (main.py would import them
anyway), so the heap the probe's own import takes is what it costs: `probe_bytes`.
"""

import gc

from goclockfw.app import loop, session  # noqa: F401 (imported before the probe: not its cost)
from goclockfw.protocol import commands  # noqa: F401

gc.collect()
_before = gc.mem_alloc()
import goclock_probe  # noqa: E402

gc.collect()
goclock_probe.probe_bytes = gc.mem_alloc() - _before
del _before
