"""A small assembler for the rp2.asm_pio language, so a board's PIO program runs in tests.

On a board, MicroPython's `rp2.asm_pio` assembles a program written as a Python function
(`jmp(pin, "label")`, `in_(x, 29)` ...). Here the same function is run with the names of
the instructions it uses bound to this module's encoders, and the 16-bit words come out as
the RP2040 datasheet gives them (section 3.4), for the `pioemu` emulator (PyPI:
rp2040-pio-emulator). Only what the project's programs use is here: jmp, in, push, mov,
set, labels and wrap. Written from the datasheet, not from MicroPython's assembler.
"""

# Names shared by conditions, sources and destinations, with the datasheet's numbers.
PINS, X, Y, NULL, ISR, OSR = 0, 1, 2, 3, 6, 7
JMP_CONDITIONS = {"not_x": 1, "x_dec": 2, "not_y": 3, "y_dec": 4, "x_not_y": 5, "pin": 6}
NOBLOCK, BLOCK, IFFULL = 0, 0x20, 0x40
_INVERT = 0x100  # marks a mov source as inverted (op 01)


class Program:
    def __init__(self):
        self.words = []  # (kind, args) until labels are known
        self.labels = {}
        self.wrap_target = 0
        self.wrap_top = None

    def assemble(self):
        out = []
        for kind, args in self.words:
            if kind == "jmp":
                cond, target = args
                out.append((cond << 5) | self.labels[target])
            else:
                out.append(args)
        return out


def assemble(func):
    """(opcodes, wrap_target, wrap_top) of a program function."""
    prog = Program()

    def jmp(cond, target=None):
        if target is None:
            cond, target = 0, cond
        prog.words.append(("jmp", (cond, target)))

    def in_(src, count):
        prog.words.append(("word", 0x4000 | (src << 5) | (count & 31)))

    def push(flags=BLOCK):
        prog.words.append(("word", 0x8000 | flags))

    def mov(dest, src):
        op = 1 if src & _INVERT else 0
        prog.words.append(("word", 0xA000 | (dest << 5) | (op << 3) | (src & 7)))

    def set_(dest, value):
        prog.words.append(("word", 0xE000 | (dest << 5) | (value & 31)))

    def label(name):
        prog.labels[name] = len(prog.words)

    def wrap_target():
        prog.wrap_target = len(prog.words)

    def wrap():
        prog.wrap_top = len(prog.words) - 1

    names = dict(
        jmp=jmp,
        in_=in_,
        push=push,
        mov=mov,
        set=set_,
        label=label,
        wrap_target=wrap_target,
        wrap=wrap,
        invert=lambda src: src | _INVERT,
        pins=PINS,
        x=X,
        y=Y,
        null=NULL,
        isr=ISR,
        osr=OSR,
        noblock=NOBLOCK,
        block=BLOCK,
        iffull=IFFULL,
        **JMP_CONDITIONS,
    )
    saved = dict(func.__globals__)
    func.__globals__.update(names)
    try:
        func()
    finally:
        func.__globals__.clear()
        func.__globals__.update(saved)
    words = prog.assemble()
    top = prog.wrap_top if prog.wrap_top is not None else len(words) - 1
    return words, prog.wrap_target, top
