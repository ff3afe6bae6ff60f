"""/boot.py of the stack's own run (`measure.py`; never deployed): paints the C stack
(stackpaint.py) and adds one serial command, `stack`, answering its deepest use so far.

Nothing else is patched: the probe (goclock_probe.py) wraps `Loop._step`, `HostLine.feed`
and `Session.step`, each a call level more under the deepest chains, which a deployed
clock does not have.
"""

import gc

from goclockfw.app import loop, session  # noqa: F401 (imported first, as probe_boot.py does)
from goclockfw.protocol import commands

# With `.mpy` files the heap is nearly full at boot: imported in another order (the
# protocol alone first), the voice pack's 2.2 KB table found no room for it.
gc.collect()
import stackpaint  # noqa: E402

stackpaint.paint()
_init = commands.Protocol.__init__


def _stack(proto, req):
    return {"stack_max": stackpaint.deepest()}


def _stack_init(self, app_, write=None, source="host"):
    _init(self, app_, write, source)
    self._cmds["stack"] = _stack


commands.Protocol.__init__ = _stack_init
