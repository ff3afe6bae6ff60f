"""The board files for a clock in a case (boards/*-case.json): the arbiter key on a GPIO.

BOOTSEL (Pico) and BOOT (DevKitC) sit on the board, out of reach inside a case, so each
board has a variant whose arbiter key is an external switch from GPIO13 to GND
(docs/build.md). The board layers take a GPIO arbiter as they take a player button;
here each variant is loaded through the fake hardware of tests/test_firmware_boards.py and
its key pressed.
"""

import json
import os

import pytest

import test_firmware_boards as fw
from conftest import REPO
from goclockfw.app.buttons import ARBITER, Debouncer

hw = fw.hw  # the fixture: fake machine/rp2 modules, the board layers imported fresh
FakePin = fw.FakePin

VARIANTS = {"pico-case": "pico", "pico-w-case": "pico-w", "esp32-devkitc-case": "esp32-devkitc"}
ARBITER_GPIO = 13


def board_file(name):
    with open(os.path.join(REPO, "boards", name + ".json")) as f:
        return json.load(f)


def _gpios(spec):
    """Every GPIO a board file names, with its key (what must not be used twice)."""
    out = []
    for key in ("arbiter", "led", "buzzer"):
        if isinstance(spec.get(key), int):
            out.append((key, spec[key]))
    for group, keys in (
        ("buttons", ("left", "right")),
        ("i2s", ("sck", "ws", "sd")),
        ("display", ("sda", "scl")),
        ("battery", ("pin", "enable_pin")),
    ):
        for k in keys:
            if isinstance(spec.get(group, {}).get(k), int):
                out.append(("%s.%s" % (group, k), spec[group][k]))
    return out


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_case_variant_is_its_board_with_the_arbiter_key_on_gpio13(variant):
    spec, base = board_file(variant), board_file(VARIANTS[variant])
    assert spec["board"] == variant
    assert spec["arbiter"] == ARBITER_GPIO
    rest = {k: v for k, v in spec.items() if k not in ("board", "arbiter")}
    assert rest == {k: v for k, v in base.items() if k not in ("board", "arbiter")}


@pytest.mark.parametrize(
    "name", sorted(n[:-5] for n in os.listdir(os.path.join(REPO, "boards")) if n.endswith(".json"))
)
def test_no_board_file_puts_two_parts_on_one_gpio(name):
    used = _gpios(board_file(name))
    gpios = [g for _k, g in used]
    assert len(gpios) == len(set(gpios)), used


def _press_arbiter(hw, board, pin):
    deb = Debouncer()
    hw.clock["ms"] = 5000
    pin.edge(0)  # the key goes down: its interrupt records the edge
    board.ring.drain(deb)
    assert board.level(ARBITER) == 1
    deb.settle(ARBITER, board.level(ARBITER), 5020)
    assert deb.pop() == 1 and deb.channel == ARBITER and deb.tick == 5000
    pin.edge(1)
    assert board.level(ARBITER) == 0


@pytest.mark.parametrize("variant", ["pico-case", "pico-w-case"])
def test_the_pico_variants_read_the_arbiter_key_on_gp13_not_bootsel(hw, variant):
    spec = board_file(variant)
    spec.pop("display")  # no I2C in the fakes
    board = hw.rp2mod.Rp2Board(spec)
    key = FakePin.pins[ARBITER_GPIO]
    assert key.pull == FakePin.PULL_UP and key.hard is True
    assert board._bootsel is False  # BOOTSEL is not sampled at all
    hw.rp2.bootsel = 1  # ... so holding it does nothing
    board.poll_inputs(4000)
    assert board.level(ARBITER) == 0
    hw.rp2.bootsel = 0
    _press_arbiter(hw, board, key)
    # The loop's sleep ends at the key's edge (the edge ring), as for a player button
    # without a state machine.
    steps = []

    def ipoll(ms):
        steps.append(ms)
        hw.clock["ms"] += ms
        return iter([])

    board._ipoll_in = ipoll
    key.edge(0)
    board.wait(1000)
    assert len(steps) == 1


def test_the_esp32_variant_reads_the_arbiter_key_on_gpio13(hw):
    FakePin.soft_only = True  # the ESP32 has soft pin interrupts only
    try:
        spec = board_file("esp32-devkitc-case")
        spec.pop("display")
        board = hw.esp32.Esp32Board(spec)
        key = FakePin.pins[ARBITER_GPIO]
        assert 0 not in FakePin.pins  # BOOT (GPIO0) is left alone
        assert key.pull == FakePin.PULL_UP and key.handler is not None
        _press_arbiter(hw, board, key)
    finally:
        FakePin.soft_only = False
