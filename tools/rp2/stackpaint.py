"""The C stack's deepest use on the emulated Pico: on the storage as /stackpaint.mpy in the
test layouts (goclock_probe.py and stack_boot.py import it), never deployed.

The RP2040's main stack is 8 KB (__StackBottom 0x20040000 to __StackTop 0x20042000 in the
rp2 port's linker map), right above the GC heap's end. MicroPython checks its depth at
each Python call, 256 B short of the bottom; C code run past that (littlefs, an interrupt
handler on the same stack) would write into the heap's last blocks. `paint` fills the
free part below the caller with a pattern (from /boot.py: a shallow stack); `deepest`
reads it back from the bottom: how deep the stack has been since, in bytes from its top.
"""

import micropython

STACK_BOTTOM = 0x20040000
STACK_TOP = 0x20042000
PAINT = 0x2A5A5A5A  # a small int on the 32-bit port: reading it back allocates nothing
MARGIN = 512  # left unpainted below the caller: what paint's own calls use


def _mem():
    try:
        import machine

        return machine.mem32
    except (ImportError, AttributeError):  # not the rp2 port
        return None


def paint():
    mem = _mem()
    if mem is None:
        return
    sp = STACK_TOP - micropython.stack_use()  # about the stack pointer here
    for a in range(STACK_BOTTOM, sp - MARGIN, 4):
        mem[a] = PAINT


def deepest():
    """Bytes of the stack used at its deepest since `paint`; None off the rp2 port."""
    mem = _mem()
    if mem is None:
        return None
    a = STACK_BOTTOM
    while a < STACK_TOP and mem[a] == PAINT:
        a += 4
    return STACK_TOP - a
