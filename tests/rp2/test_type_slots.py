"""Type objects with only the slots their instances use (tools/rp2/patches/0012): the
special methods of classes made on the chip behave as CPython's, whether a class has
them itself, from a base, from a native base (an exception) or not at all; and a class
without them takes less heap than one with them."""

import subprocess
import sys

import pytest
from rp2_helpers import emu

pytestmark = pytest.mark.timeout(600)

SCRIPT = r"""
def kind(f):
    try:
        return repr(f())
    except Exception as e:
        return type(e).__name__

class Plain:
    def __init__(self, v):
        self.v = v
    def value(self):
        return self.v

a, b = Plain(1), Plain(1)
print("plain", a == a, a == b, a != b, a in [b, a], hash(a) == hash(a), bool(a))
print("plain dict", {a: 1, b: 2}[a], callable(a), kind(lambda: len(a)), kind(lambda: a[0]))
print("plain ops", kind(lambda: iter(a)), kind(lambda: a()), kind(lambda: a < b), kind(lambda: a + b))
Plain.double = lambda self: 2 * self.v  # an ordinary method set after the class is made
print("plain later", a.double(), a.value())

class Eq:
    def __init__(self, v):
        self.v = v
    def __eq__(self, other):
        return isinstance(other, Eq) and self.v == other.v
    def __hash__(self):
        return self.v
    def __lt__(self, other):
        return self.v < other.v
    def __repr__(self):
        return "Eq(%d)" % self.v

print("eq", Eq(1) == Eq(1), Eq(1) != Eq(2), Eq(2) in [Eq(1), Eq(2)], hash(Eq(7)), sorted([Eq(3), Eq(1)]))
print("eq str", str(Eq(4)), repr([Eq(5)]))

class Sub(Eq):
    pass

print("sub", Sub(1) == Sub(1), Sub(1) == Sub(2), hash(Sub(9)), repr(Sub(2)), Sub(1) < Sub(2))

class Seq:
    def __init__(self, n):
        self.n = n
        self.d = {}
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError
        return self.d.get(i, i * 10)
    def __setitem__(self, i, v):
        self.d[i] = v
    def __delitem__(self, i):
        del self.d[i]
    def __contains__(self, x):
        return x == "yes"

s = Seq(3)
s[1] = 99
print("seq", len(s), s[1], list(s), bool(Seq(0)), bool(s), "yes" in s, "no" in s)
del s[1]
print("seq del", list(s))

class SubSeq(Seq):
    pass

print("subseq", len(SubSeq(2)), list(SubSeq(2)), bool(SubSeq(0)))

class Count:
    def __init__(self, n):
        self.i, self.n = 0, n
    def __iter__(self):
        return self
    def __next__(self):
        if self.i >= self.n:
            raise StopIteration
        self.i += 1
        return self.i

print("iter", list(Count(4)), [x for x in Count(2)])

class Call:
    def __call__(self, x):
        return x + 1
    def __bool__(self):
        return False
    def __str__(self):
        return "called"

c = Call()
print("call", c(1), callable(c), bool(c), str(c), "%s" % c)

class Num:
    def __init__(self, v):
        self.v = v
    def __add__(self, o):
        return Num(self.v + (o.v if isinstance(o, Num) else o))
    def __radd__(self, o):
        return Num(o + self.v)
    def __iadd__(self, o):
        self.v += o
        return self
    def __neg__(self):
        return Num(-self.v)

n = Num(2) + Num(3)
m = 10 + Num(1)
k = Num(1)
k += 5
print("num", n.v, m.v, k.v, (-Num(4)).v)

class Oops(Exception):
    pass

class Oops2(Oops):
    def __init__(self, why):
        super().__init__("oops: " + why)

try:
    raise Oops2("late")
except Oops as e:
    print("exc", type(e).__name__, str(e), e.args, isinstance(e, Exception))

class Ctx:
    def __enter__(self):
        print("enter")
        return self
    def __exit__(self, *a):
        print("exit")
        return False

with Ctx():
    print("inside")

class Lazy:
    def __getattr__(self, name):
        return name.upper()
    @property
    def p(self):
        return "prop"

print("attr", Lazy().abc, Lazy().p)
print("DONE")
"""

MEASURE = r"""
import gc
def f(self, *a):
    return 1
def size(make):
    keep = []
    gc.collect()
    a = gc.mem_alloc()
    for i in range(32):
        keep.append(make())
    gc.collect()
    return (gc.mem_alloc() - a) // 32
# The class dicts are made once and shared: what each class adds is its type object (and
# a slot of the list that keeps it).
PLAIN = {"m0": f, "m1": f, "m2": f}
FULL = {"__eq__": f, "__hash__": f, "__repr__": f, "__len__": f, "__call__": f,
        "__getitem__": f, "__iter__": f}
class A:
    pass
print("SIZES", size(lambda: type("X", (), PLAIN)), size(lambda: type("X", (), FULL)),
      size(lambda: type("X", (A,), PLAIN)), size(lambda: type("X", (Exception,), PLAIN)))
print("DONE")
"""


def _run(image, script):
    pico = emu.Pico(image, emu.make_fs(files={"/main.py": script.encode()}))
    text = pico.text_until(("DONE", "Traceback"))
    assert "DONE" in text and "Traceback" not in text, text[-2000:]
    lines = [line.rstrip("\r") for line in text.splitlines()]
    return lines[: lines.index("DONE")]


def test_special_methods_behave_as_in_cpython(plain_image):
    want = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    want = want[: want.index("DONE")]
    got = _run(plain_image, SCRIPT)
    got = got[len(got) - len(want) :]  # (what the board printed before main.py)
    assert got == want


def test_a_class_without_special_methods_takes_less_heap(plain_image):
    (line,) = [x for x in _run(plain_image, MEASURE) if x.startswith("SIZES")]
    plain, full, sub, exc = (int(v) for v in line.split()[1:])
    # Each figure is a type object and its share of a list (3 B a class, rounded down).
    # Without special methods or bases: make_new, attr and its dict, 32 B; with a Python
    # base, the parent too, 48 B; with all the special methods or an exception for a base,
    # every slot, 64 B (MicroPython's, for every class, before patch 0012).
    assert (plain, sub) == (35, 51), line
    assert full == exc == 67, line
