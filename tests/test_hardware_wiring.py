"""The wiring diagrams (docs/img/wiring-<board>.svg) are drawn from the board files.

Each committed SVG must be what `python -m tools.hardware.wiring` draws from
boards/<board>.json now (a pin changed in a board file and not redrawn fails here), and,
read back as XML, it must show exactly the GPIOs the board file names: each wire starts
on the header pin of its GPIO, each part is grounded, each supply wire is on the pin of
that name. The PNG beside it must carry the SVG's hash (it was made from this SVG).
"""

import copy
import hashlib
import json
import os
import shutil
import xml.etree.ElementTree as ET

import pytest

from conftest import REPO
from tools.hardware import pngmeta, wiring

BOARDS = sorted(n[:-5] for n in os.listdir(os.path.join(REPO, "boards")) if n.endswith(".json"))
IMG = os.path.join(REPO, "docs", "img")
NS = "{http://www.w3.org/2000/svg}"


def board_file(name):
    with open(os.path.join(REPO, "boards", name + ".json")) as f:
        return json.load(f)


def expected_pins(spec):
    """What the board file wires, key -> value, read here independently of the tool."""
    out = {}
    for side in ("left", "right"):
        if side in spec.get("buttons", {}):
            out["buttons." + side] = spec["buttons"][side]
    for key in ("arbiter", "led"):
        if key in spec:
            out[key] = spec[key]
    if spec.get("audio") == "i2s":
        for k in ("sck", "ws", "sd"):
            out["i2s." + k] = spec["i2s"][k]
    if spec.get("audio") in ("i2s", "pwm") and "buzzer" in spec:
        out["buzzer"] = spec["buzzer"]
    for k in ("sda", "scl"):
        if k in spec.get("display", {}):
            out["display." + k] = spec["display"][k]
    for k in ("pin", "enable_pin"):
        if k in spec.get("battery", {}):
            out["battery." + k] = spec["battery"][k]
    return {k: str(v) for k, v in out.items()}


def parse(text):
    root = ET.fromstring(text)
    pins = {}
    for c in root.iter(NS + "circle"):
        if c.get("class") == "pin":
            pins[(float(c.get("cx")), float(c.get("cy")))] = c.attrib
    wires = [p.attrib for p in root.iter(NS + "polyline") if p.get("class") == "wire"]
    onboard = [g.attrib for g in root.iter(NS + "g") if g.get("class") == "onboard"]
    return root, pins, wires, onboard


def first_point(wire):
    x, y = wire["points"].split()[0].split(",")
    return float(x), float(y)


def drawn_pins(text):
    _root, _pins, wires, onboard = parse(text)
    drawn = {w["data-key"]: w["data-gpio"] for w in wires if "data-key" in w}
    for g in onboard:
        assert g["data-key"] not in drawn, g
        drawn[g["data-key"]] = g["data-gpio"].strip('"')
    return drawn


@pytest.fixture(scope="module")
def drawings():
    return {name: wiring.svg_for(os.path.join(REPO, "boards", name + ".json")) for name in BOARDS}


@pytest.mark.parametrize("name", BOARDS)
def test_the_committed_svg_is_what_the_board_file_draws_now(drawings, name):
    path = os.path.join(IMG, "wiring-%s.svg" % name)
    assert os.path.exists(path), "no %s: python -m tools.hardware.wiring" % path
    with open(path) as f:
        committed = f.read()
    assert committed == drawings[name], (
        "docs/img/wiring-%s.svg is stale: python -m tools.hardware.wiring" % name
    )


@pytest.mark.parametrize("name", BOARDS)
def test_the_svg_shows_exactly_the_board_file_s_pins(drawings, name):
    with open(os.path.join(IMG, "wiring-%s.svg" % name)) as f:
        text = f.read()
    assert drawn_pins(text) == expected_pins(board_file(name))
    _root, pins, wires, _onboard = parse(text)
    grounded = set()
    for w in wires:
        at = pins.get(first_point(w))
        assert at is not None, "wire %r does not start on a header pin" % w
        assert at["data-pin"] == w["data-pin"]
        if "data-key" in w:  # a GPIO: on that GPIO's pin, labelled with it
            assert at["data-gpio"] == w["data-gpio"], (w, at)
            assert at["data-name"] == w["data-net"]
        else:  # ground or a supply: on a pin of that name
            assert at["data-name"] == w["data-net"], (w, at)
            if w["data-net"] == "GND":
                grounded.add(w["data-part"])
    parts = {w["data-part"] for w in wires}
    assert parts == grounded, "parts without a ground wire: %s" % (parts - grounded)


def test_the_header_drawings_agree_with_the_datasheets_where_the_clock_is_wired(drawings):
    """Spot checks of the pinouts against the boards' documents (Pico datasheet pinout;
    DevKitC V4 headers J2/J3)."""

    def names(text):
        return {p["data-pin"]: p["data-name"] for p in parse(text)[1].values()}

    pico = names(drawings["pico"])
    assert len(pico) == 40
    assert [pico[n] for n in ("6", "7", "19", "20", "21", "22", "24", "29")] == [
        "GP4", "GP5", "GP14", "GP15", "GP16", "GP17", "GP18", "GP22"
    ]  # fmt: skip
    assert [pico[n] for n in ("3", "8", "13", "18", "23", "28", "38")] == ["GND"] * 7
    assert (pico["36"], pico["39"], pico["40"]) == ("3V3", "VSYS", "VBUS")
    devkitc = names(drawings["esp32-devkitc"])
    assert len(devkitc) == 38
    assert [devkitc[n] for n in ("J2-1", "J2-5", "J2-7", "J2-8", "J2-14", "J2-19")] == [
        "3V3", "IO34", "IO32", "IO33", "GND", "5V"
    ]  # fmt: skip
    assert [devkitc[n] for n in ("J3-1", "J3-3", "J3-6", "J3-7", "J3-14", "J3-15")] == [
        "GND", "IO22", "IO21", "GND", "IO0", "IO2"
    ]  # fmt: skip


def test_a_pin_changed_in_the_board_file_is_redrawn_on_its_new_pin():
    spec = copy.deepcopy(board_file("pico"))
    spec["buttons"]["left"] = 12
    text = wiring.render(wiring.diagram("pico", spec), "boards/pico.json")
    assert drawn_pins(text)["buttons.left"] == "12"
    _root, pins, wires, _ = parse(text)
    (left,) = [w for w in wires if w.get("data-key") == "buttons.left"]
    assert pins[first_point(left)]["data-pin"] == "16"  # GP12 is the Pico's pin 16
    with open(os.path.join(IMG, "wiring-pico.svg")) as f:
        assert f.read() != text


@pytest.mark.parametrize(
    "change, message",
    [
        ({"buttons": {"left": 23, "right": 15}}, "buttons.left: GPIO 23 is not on the"),
        ({"i2s": {"sck": 16, "ws": "17", "sd": 18}}, "i2s.ws: '17' is not a GPIO number"),
        ({"board": "teensy"}, "no header drawing for board 'teensy'"),
    ],
)
def test_a_board_file_it_cannot_draw_gets_a_clear_error(change, message):
    spec = dict(board_file("pico"), **change)
    with pytest.raises((wiring.BoardFileError, KeyError)) as e:
        wiring.diagram("x", spec)
    assert message in str(e.value)


@pytest.mark.parametrize("name", BOARDS)
def test_the_png_was_made_from_the_committed_svg(name):
    with open(os.path.join(IMG, "wiring-%s.svg" % name)) as f:
        svg = f.read()
    with open(os.path.join(IMG, "wiring-%s.png" % name), "rb") as f:
        png = f.read()
    meta = pngmeta.read_text(png)
    assert meta.get("Source-SHA256") == hashlib.sha256(svg.encode()).hexdigest(), (
        "docs/img/wiring-%s.png is stale: python -m tools.hardware.wiring" % name
    )
    assert "MIT" in meta.get("Copyright", "")
    root = ET.fromstring(svg)
    assert pngmeta.size(png) == (round(float(root.get("width"))), round(float(root.get("height"))))


@pytest.mark.skipif(
    shutil.which("rsvg-convert") is None, reason="rsvg-convert missing: make hardware-tools"
)
def test_the_png_maker_stamps_what_it_renders(tmp_path, drawings):
    svg_path = tmp_path / "w.svg"
    svg_path.write_text(drawings["pico"])
    wiring.write_png(str(svg_path), str(tmp_path / "w.png"), drawings["pico"])
    png = (tmp_path / "w.png").read_bytes()
    assert pngmeta.read_text(png)["Source-SHA256"] == wiring.svg_digest(drawings["pico"])
    assert pngmeta.size(png)[0] > 500
