"""Wiring diagrams drawn from the board files: boards/<name>.json -> docs/img/wiring-<name>.svg.

The board file is the only source of the pins: each GPIO it names (the player buttons,
the arbiter key, the LED, the amplifier's I2S lines or the buzzer, the display's I2C
lines, the battery's ADC) is drawn as a wire from its pin on the board's header
(tools/hardware/headers.py) to the part, with the ground and supply wires each part
needs. What sits on the board itself (BOOTSEL, the Pico's LED, its VSYS divider) is
marked on the board and listed under it. A PNG of each drawing is made with
rsvg-convert when it is installed (`python -m tools.hardware.debian`), stamped with the
SVG's hash so a test can tell a stale one.

    python -m tools.hardware.wiring [--out docs/img] [--no-png] [--check] [board ...]

The SVG elements carry what they show as data attributes (`data-key`: the board file's
key, `data-gpio`, `data-pin`, `data-net`), which tests/test_hardware_wiring.py reads
back and compares with the board files.
"""

import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from . import pngmeta
from .headers import header_for

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOARDS = os.path.join(REPO, "boards")
OUT = os.path.join(REPO, "docs", "img")

SCALE = 10.0  # px per mm of board
LANE = 9  # px between two wires' vertical runs
PART_W = 200  # px, the narrowest part box
ROW = 18  # px per pin row in a part's box
NOTE_ROW = 13
GAP = 16  # px between two part boxes
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
COLOURS = {"gnd": "#222222", "power": "#d62728"}
SIGNAL_COLOURS = ("#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")


# ----- what is wired to what (from the board file) --------------------------------------


@dataclass
class Wire:
    net: str  # "GP14", "GND", "3V3", "VSYS"
    pin: object  # headers.Pin at the board's end
    kind: str  # "signal", "gnd" or "power"
    key: "str | None" = None  # the board file's key for a GPIO ("buttons.left")
    gpio: "int | None" = None
    via: str = ""  # a part in the wire ("1N5817"), drawn as a label on it


@dataclass
class PartPin:
    label: str
    wire: "Wire | None" = None  # None: a pin left open (drawn, labelled "open")


@dataclass
class Part:
    slug: str
    title: str
    pins: list
    notes: list = field(default_factory=list)
    outputs: "tuple | None" = None  # the amplifier's speaker terminals: (glyph title, pins)
    alternative: bool = False  # drawn dashed: instead of another part
    swappable: bool = False  # a switch: either leg to either wire (drawn the way that is tidier)


@dataclass
class OnBoard:
    key: str  # the board file's key
    value: object  # its value ("bootsel", "LED", 29)
    text: str
    feature: object = None  # headers.Feature marked on the board, if any


@dataclass
class Diagram:
    name: str
    header: object
    parts: list
    onboard: list
    notes: list


class BoardFileError(ValueError):
    pass


def _gpio_wire(header, key, gpio):
    if not isinstance(gpio, int) or isinstance(gpio, bool):
        raise BoardFileError("%s: %r is not a GPIO number" % (key, gpio))
    pin = header.pin_of_gpio(gpio)
    if pin is None:
        raise BoardFileError("%s: GPIO %d is not on the %s's header" % (key, gpio, header.title))
    return Wire(pin.name, pin, "signal", key, gpio)


def _gnd_near(header, pin):
    """The GND pin nearest `pin`, one on the same edge first."""
    gnds = header.pins_named("GND")
    same = [g for g in gnds if header.side(g) == header.side(pin)] or gnds
    return min(same, key=lambda g: (abs(g.y - pin.y), g.number))


def _gnd(header, near):
    return Wire("GND", _gnd_near(header, near), "gnd")


def _power(header, which):
    name = header.power[which]
    (pin,) = header.pins_named(name)
    return Wire(name, pin, "power")


def _to_gnd(header, slug, title, key, gpio, labels, note, **kw):
    """A two-pin part between the GPIO board-file `key` names and the nearest GND."""
    w = _gpio_wire(header, key, gpio)
    pins = [PartPin(labels[0], w), PartPin(labels[1], _gnd(header, w.pin))]
    return Part(slug, title, pins, [note], **kw)


def diagram(name, spec):
    """What the board file `spec` (boards/<name>.json, parsed) wires, part by part."""
    board = spec.get("board", name)
    header = header_for(board)
    parts, onboard, notes = [], [], []
    _keys(header, spec, parts, onboard)
    _audio(header, spec, parts)
    _display(header, spec, parts)
    _battery(header, spec, parts, onboard)
    for part in parts:
        if part.swappable:
            part.pins.sort(key=lambda pp: (pp.wire.pin.y, pp.wire.kind != "signal"))
    if header.pins_named("GND"):
        notes.append("Any GND pin will do; the ones drawn are the nearest.")
    return Diagram(name, header, parts, onboard, notes)


def _keys(header, spec, parts, onboard):
    """The players' buttons, the arbiter key and the LED (the last two may be on the board)."""
    buttons = spec.get("buttons", {})
    for side, whose in (("left", "Black's"), ("right", "White's")):
        if side in buttons:
            title = "%s player button (%s)" % (side.capitalize(), whose)
            parts.append(
                _to_gnd(header, "button-" + side, title, "buttons." + side, buttons[side],
                        ("switch", "switch"), "normally open; internal pull-up", swappable=True)
            )  # fmt: skip

    arbiter = spec.get("arbiter")
    if arbiter is not None:
        feature = header.feature_of(arbiter)
        if feature is not None:
            text = "arbiter key: the %s button on the board" % feature.label
            if isinstance(arbiter, int):
                text += " (GPIO%d)" % arbiter
            onboard.append(OnBoard("arbiter", arbiter, text, feature))
        else:
            parts.append(
                _to_gnd(header, "arbiter", "Arbiter key", "arbiter", arbiter, ("switch", "switch"),
                        "recessed in the case; internal pull-up", swappable=True)
            )  # fmt: skip

    led = spec.get("led")
    if led is not None:
        feature = header.feature_of(led)
        if feature is not None:
            onboard.append(
                OnBoard("led", led, "LED: the board's own (%s)" % feature.label, feature)
            )
        else:
            parts.append(
                _to_gnd(header, "led", "LED (whose clock runs)", "led", led,
                        ("anode", "cathode"), "330 \u03a9 in series")
            )  # fmt: skip


def _audio(header, spec, parts):
    """The I2S amplifier, and a buzzer (for beeps, or instead of the amplifier)."""
    audio = spec.get("audio", "none")
    i2s = spec.get("i2s")
    if audio == "i2s" and isinstance(i2s, dict):
        lines = {
            "LRC": _gpio_wire(header, "i2s.ws", i2s.get("ws")),
            "BCLK": _gpio_wire(header, "i2s.sck", i2s.get("sck")),
            "DIN": _gpio_wire(header, "i2s.sd", i2s.get("sd")),
        }
        gnd = _gnd(header, lines["DIN"].pin)
        vin = _power(header, "amp")
        parts.append(
            Part(
                "amp",
                "MAX98357A I\u00b2S amplifier",
                [
                    PartPin("LRC", lines["LRC"]),
                    PartPin("BCLK", lines["BCLK"]),
                    PartPin("DIN", lines["DIN"]),
                    PartPin("GAIN"),
                    PartPin("SD"),
                    PartPin("GND", gnd),
                    PartPin("Vin", vin),
                ],
                ["GAIN open: 9 dB; SD open: on, L+R"],
                outputs=("speaker 4\u20138 \u03a9", ("+", "\u2212")),
            )
        )
    buzzer = spec.get("buzzer")
    if buzzer is not None and audio in ("i2s", "pwm"):
        alt = audio != "pwm"
        title = "Piezo buzzer (passive)" + (": or, instead" if alt else "")
        note = 'beeps only; "audio": "pwm"' if alt else "beeps only"
        parts.append(
            _to_gnd(
                header, "buzzer", title, "buzzer", buzzer, ("+", "\u2212"), note, alternative=alt
            )
        )


def _display(header, spec, parts):
    """An SSD1306 display on I2C."""
    display = spec.get("display")
    if isinstance(display, dict):
        scl = _gpio_wire(header, "display.scl", display.get("scl"))
        sda = _gpio_wire(header, "display.sda", display.get("sda"))
        parts.append(
            Part(
                "display",
                "SSD1306 128\u00d764 OLED, I\u00b2C 0x%02X" % display.get("addr", 0x3C),
                [
                    PartPin("GND", _gnd(header, scl.pin)),
                    PartPin("VCC", _power(header, "3v3")),
                    PartPin("SCL", scl),
                    PartPin("SDA", sda),
                ],
                ["pin order varies: read your module"],
            )
        )


def _battery(header, spec, parts, onboard):
    """A battery: the board's own supply input (Pico), or a divider and a boost converter."""
    battery = spec.get("battery")
    if isinstance(battery, dict):
        adc = battery.get("pin")
        divider = battery.get("divider", 1)
        if adc in header.internal:
            onboard.append(OnBoard("battery.pin", adc, header.internal[adc]))
            enable = battery.get("enable_pin")
            if enable is not None:
                onboard.append(OnBoard("battery.enable_pin", enable, header.internal[enable]))
            supply = _power(header, "battery")
            offset = battery.get("offset_mv", 0)
            supply.via = "1N5817" if offset else ""
            parts.append(
                Part(
                    "battery",
                    "Battery: 1S Li-ion/LiPo via its charger",
                    [PartPin("+", supply), PartPin("\u2212", _gnd(header, supply.pin))],
                    [
                        "Schottky diode to VSYS: offset_mv %d" % offset
                        if offset
                        else "straight to VSYS (a diode: set offset_mv)"
                    ],
                )
            )
        else:
            w = _gpio_wire(header, "battery.pin", adc)
            top = (divider - 1) * 100
            parts.append(
                Part(
                    "divider",
                    "Battery divider 1:%s" % divider,
                    [PartPin("tap", w), PartPin("GND end", _gnd(header, w.pin))],
                    [
                        "%s k\u03a9 battery + to tap" % _num(top),
                        "100 k\u03a9 tap to GND",
                    ],
                )
            )
            supply = _power(header, "battery")
            supply.via = "1N5817"  # keeps USB's 5 V out of the converter
            parts.append(
                Part(
                    "boost",
                    "Battery: boost converter to 5 V",
                    [PartPin("OUT+", supply), PartPin("OUT\u2212", _gnd(header, supply.pin))],
                    ["its switch off before USB is plugged in"],
                )
            )


def _num(x):
    return ("%g" % x).replace(".0", "")


# ----- layout ---------------------------------------------------------------------------


@dataclass
class _Route:
    part: Part
    index: int  # the pin's row in its part
    wire: Wire
    colour: str
    sides: tuple = ()  # the sides it runs on: ("left",) or ("left", "right") via a bus
    lanes: dict = field(default_factory=dict)
    bus_y: float = 0.0
    end: tuple = (0.0, 0.0)  # the part pin's point


def _crossings(segments, order):
    """Crossings between the wires' runs on one side, lanes in `order` (nearest first).
    A segment is (net, y at the board's end, y at the part's end); two wires of one net
    (two GND wires) may cross: they are joined anyway."""
    n = 0
    for a in range(len(order)):
        net_i, p_i, t_i = segments[order[a]]
        lo_i, hi_i = min(p_i, t_i), max(p_i, t_i)
        for b in range(a + 1, len(order)):
            net_j, p_j, t_j = segments[order[b]]
            if net_i == net_j:
                continue
            lo_j, hi_j = min(p_j, t_j), max(p_j, t_j)
            if lo_i < p_j < hi_i:
                n += 1  # the farther wire's first run crosses the nearer one's riser
            if lo_j < t_i < hi_j:
                n += 1  # the nearer wire's last run crosses the farther one's riser
    return n


def _assign_lanes(segments):
    """A lane order with few crossings: from the wires sorted by their pin, move one
    wire to another lane while that removes a crossing (deterministic; a side has a
    dozen wires at most, so this is quick)."""
    order = sorted(segments, key=lambda k: (segments[k][1], segments[k][2], k))
    best = _crossings(segments, order)
    improved = True
    while improved and best:
        improved = False
        for i in range(len(order)):
            for j in range(len(order)):
                if i == j:
                    continue
                trial = order[:i] + order[i + 1 :]
                trial.insert(j, order[i])
                n = _crossings(segments, trial)
                if n < best:
                    order, best, improved = trial, n, True
                    break
            if improved:
                break
    return order


class _Svg:
    def __init__(self):
        self.items = []
        self.xs, self.ys = [], []

    def grow(self, x, y):
        self.xs.append(x)
        self.ys.append(y)

    def add(self, text):
        self.items.append(text)

    def text(self, x, y, s, size=11, anchor="start", colour="#222", weight="normal", extra=""):
        width = 0.6 * size * len(s)
        x0 = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
        self.grow(x0, y - size)
        self.grow(x0 + width, y + 3)
        self.add(
            '<text x="%s" y="%s" font-size="%s" text-anchor="%s" fill="%s"%s%s>%s</text>'
            % (
                _f(x),
                _f(y),
                size,
                anchor,
                colour,
                "" if weight == "normal" else ' font-weight="%s"' % weight,
                extra,
                escape(s),
            )
        )

    def rect(self, x, y, w, h, extra=""):
        self.grow(x, y)
        self.grow(x + w, y + h)
        self.add(
            '<rect x="%s" y="%s" width="%s" height="%s" %s/>' % (_f(x), _f(y), _f(w), _f(h), extra)
        )


def _f(v):
    s = "%.1f" % v
    return s[:-2] if s.endswith(".0") else s


def _attrs(**kw):
    return "".join(
        ' data-%s="%s"' % (k.replace("_", "-"), escape(str(v), {'"': "&quot;"}))
        for k, v in kw.items()
        if v is not None
    )


class _Layout:
    """Where everything of diagram `d` goes: each part's side and box, each wire's route,
    lanes and bus row, the part columns. The board's top left corner is at (0, 0)."""

    def __init__(self, d):
        self.d = d
        h = self.h = d.header
        self.bw, self.bh = h.width * SCALE, h.height * SCALE
        self.bx, self.by = 0.0, 0.0
        self._routes()
        self._boxes()
        self._buses()
        self._lanes()
        self.col_w = {
            side: max([PART_W] + [self.part_w(p) for p in d.parts if self.side_of[p.slug] == side])
            for side in ("left", "right")
        }
        # The left boxes' right edge, the right boxes' left edge.
        self.left_col = self.bx - 20 - LANE * (self.lanes_n["left"] + 1)
        self.right_col = self.bx + self.bw + 20 + LANE * (self.lanes_n["right"] + 1)

    def pin_xy(self, pin):
        return self.bx + pin.x * SCALE, self.by + pin.y * SCALE

    def _routes(self):
        """Which side each part goes on: where most of its wires leave the board."""
        h = self.h
        self.routes, self.side_of = routes, side_of = [], {}
        colour_i = 0
        for part in self.d.parts:
            votes = [h.side(pp.wire.pin) for pp in part.pins if pp.wire is not None]
            side_of[part.slug] = max(
                ("left", "right"), key=lambda s: (votes.count(s), s == votes[0])
            )
            for i, pp in enumerate(part.pins):
                if pp.wire is None:
                    continue
                w = pp.wire
                if w.kind == "signal":
                    colour = SIGNAL_COLOURS[colour_i % len(SIGNAL_COLOURS)]
                    colour_i += 1
                else:
                    colour = COLOURS[w.kind]
                here = h.side(w.pin)
                there = side_of[part.slug]
                routes.append(
                    _Route(part, i, w, colour, (here,) if here == there else (here, there))
                )

    def box_h(self, part):
        return 22 + NOTE_ROW * len(part.notes) + ROW * len(part.pins) + 4

    def mean_y(self, part):
        ys = [self.pin_xy(r.wire.pin)[1] for r in self.routes if r.part is part]
        return sum(ys) / len(ys)

    def _boxes(self):
        """Part boxes: stacked on their side in the order of their wires' pins."""
        self.tops = {}
        for side in ("left", "right"):
            y = self.by - 30
            parts = (p for p in self.d.parts if self.side_of[p.slug] == side)
            for part in sorted(parts, key=self.mean_y):
                top = max(y, self.mean_y(part) - self.box_h(part) / 2)
                self.tops[part.slug] = top
                y = top + self.box_h(part) + GAP

    def part_pin_y(self, part, i):
        return self.tops[part.slug] + 22 + NOTE_ROW * len(part.notes) + ROW * i + ROW / 2

    def _buses(self):
        """Wires that cross to the other side go round the board's nearer end on a bus row."""
        by, bh = self.by, self.bh
        self.top_bus = self.bottom_bus = 0
        for r in self.routes:
            if len(r.sides) == 2:
                mid = (self.pin_xy(r.wire.pin)[1] + self.part_pin_y(r.part, r.index)) / 2
                if mid < by + bh / 2:
                    self.top_bus += 1
                    r.bus_y = by - 3 * SCALE - self.top_bus * LANE
                else:
                    self.bottom_bus += 1
                    r.bus_y = by + bh + 2 * SCALE + self.bottom_bus * LANE

    def _lanes(self):
        """Lanes on each side, then the part columns beyond them."""
        routes = self.routes
        self.lanes_n = {}
        for side in ("left", "right"):
            segments = {}
            for n, r in enumerate(routes):
                py = self.pin_xy(r.wire.pin)[1]
                ty = self.part_pin_y(r.part, r.index)
                if r.sides == (side,):
                    segments[n] = (r.wire.net, py, ty)
                elif r.sides[0] == side:
                    segments[n] = (r.wire.net, py, r.bus_y)
                elif side in r.sides:
                    segments[n] = (r.wire.net, r.bus_y, ty)
            order = _assign_lanes(segments)
            for lane, n in enumerate(order):
                routes[n].lanes[side] = lane + 1
            self.lanes_n[side] = len(order)

    def part_w(self, part):
        texts = [(part.title, 11)] + [(n, 9) for n in part.notes]
        return max([PART_W] + [int(0.6 * size * len(t)) + 20 for t, size in texts])

    def lane_x(self, side, lane):
        if side == "left":
            return self.bx - 14 - LANE * lane
        return self.bx + self.bw + 14 + LANE * lane


def render(d, source):
    """The SVG text of diagram `d`; `source` names the board file in the drawing."""
    lay = _Layout(d)
    svg = _Svg()
    _draw_board(svg, lay)
    marks = _draw_marks(svg, lay)
    _draw_parts(svg, lay)
    _draw_wires(svg, lay)
    title = "%s: the wiring of %s" % (lay.h.title, source)
    _draw_captions(svg, lay, title, source, marks)
    return _svg_text(svg, d, title, source)


def _draw_board(svg, lay):
    """The board: outline, header, what is on it."""
    h, bx, by = lay.h, lay.bx, lay.by
    svg.rect(
        bx,
        by,
        lay.bw,
        lay.bh,
        'rx="8" fill="#2e7d32" fill-opacity="0.10" stroke="#2e7d32" stroke-width="2"',
    )
    for f in h.features:
        fx, fy, fw, fh = bx + f.x * SCALE, by + f.y * SCALE, f.w * SCALE, f.h * SCALE
        style = {
            "usb": 'fill="#bbbbbb" stroke="#777"',
            "chip": 'fill="#444" stroke="#222"',
            "module": 'fill="#cfd8dc" fill-opacity="0.6" stroke="#78909c"',
        }.get(f.kind, 'fill="#ffffff" stroke="#555"')
        svg.rect(fx, fy, fw, fh, style + ' rx="1.5"')
        if f.kind in ("chip", "module"):
            colour = "#fff" if f.kind == "chip" else "#37474f"
            svg.text(fx + fw / 2, fy + fh / 2 + 4, f.label, 9, "middle", colour)
        elif f.kind in ("usb", "button"):
            svg.text(fx + fw / 2, fy + fh / 2 + 3, f.label, 7, "middle", "#333")
    used = {r.wire.pin.number for r in lay.routes}
    for pin in h.pins:
        x, y = lay.pin_xy(pin)
        left = h.side(pin) == "left"
        fill = "#ffd54f" if pin.number in used else "#ffffff"
        svg.grow(x - 5, y - 5)
        svg.add(
            '<circle class="pin" cx="%s" cy="%s" r="4.5" fill="%s" stroke="#555"%s/>'
            % (_f(x), _f(y), fill, _attrs(pin=pin.number, name=pin.name, gpio=pin.gpio))
        )
        weight = "bold" if pin.number in used else "normal"
        num = pin.number.split("-")[-1]
        if left:
            svg.text(x + 8, y + 4, num, 7, "start", "#777")
            svg.text(x + 21, y + 4, pin.name, 10, "start", "#111", weight)
        else:
            svg.text(x - 8, y + 4, num, 7, "end", "#777")
            svg.text(x - 21, y + 4, pin.name, 10, "end", "#111", weight)


def _draw_marks(svg, lay):
    """Marks for what is on the board, numbered; returns [(n, item)] for the list under
    the drawing."""
    h, bx, by = lay.h, lay.bx, lay.by
    marks = []
    for ob in lay.d.onboard:
        n = len(marks) + 1
        marks.append((n, ob))
        if ob.feature is not None:
            f = ob.feature
            # The number beside the part, on the side towards the board's middle.
            towards_left = f.x + f.w / 2 > h.width / 2
            cx = bx + (f.x * SCALE - 9 if towards_left else (f.x + f.w) * SCALE + 9)
            cy = by + (f.y + f.h / 2) * SCALE
            fx, fy = bx + f.x * SCALE, by + f.y * SCALE
            svg.add(
                '<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#e65100" stroke-width="2" rx="2"/>'
                % (_f(fx - 2), _f(fy - 2), _f(f.w * SCALE + 4), _f(f.h * SCALE + 4))
            )
            svg.add('<circle cx="%s" cy="%s" r="7" fill="#e65100"/>' % (_f(cx), _f(cy)))
            svg.text(cx, cy + 4, str(n), 10, "middle", "#fff", "bold")
    return marks


def _draw_parts(svg, lay):
    """The part boxes, their pins and (an amplifier's) speaker."""
    for part in lay.d.parts:
        side = lay.side_of[part.slug]
        width = lay.col_w[side]
        x0 = lay.left_col - width if side == "left" else lay.right_col
        top = lay.tops[part.slug]
        dash = ' stroke-dasharray="6 4"' if part.alternative else ""
        svg.add('<g class="part"%s>' % _attrs(part=part.slug))
        svg.rect(
            x0,
            top,
            width,
            lay.box_h(part),
            'rx="6" fill="#fafafa" stroke="#555" stroke-width="1.5"%s' % dash,
        )
        svg.text(x0 + 8, top + 15, part.title, 11, "start", "#111", "bold")
        for k, note in enumerate(part.notes):
            svg.text(x0 + 8, top + 28 + NOTE_ROW * k, note, 9, "start", "#555")
        inner = x0 + width if side == "left" else x0
        for i, pp in enumerate(part.pins):
            y = lay.part_pin_y(part, i)
            svg.add(
                '<circle cx="%s" cy="%s" r="3.5" fill="#fff" stroke="#555"/>' % (_f(inner), _f(y))
            )
            label = pp.label if pp.wire is not None else pp.label + " (open)"
            colour = "#111" if pp.wire is not None else "#999"
            if side == "left":
                svg.text(inner - 8, y + 4, label, 10, "end", colour)
            else:
                svg.text(inner + 8, y + 4, label, 10, "start", colour)
        if part.outputs:
            _speaker(svg, part, x0 if side == "left" else x0 + width, top, side)
        svg.add("</g>")


def _draw_wires(svg, lay):
    """Each wire from its header pin along its lanes (and bus row) to its part's pin."""
    for r in lay.routes:
        side = r.sides[-1]
        inner = lay.left_col if side == "left" else lay.right_col
        px, py = lay.pin_xy(r.wire.pin)
        ty = lay.part_pin_y(r.part, r.index)
        pts = [(px, py)]
        if len(r.sides) == 1:
            lx = lay.lane_x(side, r.lanes[side])
            pts += [(lx, py), (lx, ty)]
        else:
            a, b = r.sides
            la, lb = lay.lane_x(a, r.lanes[a]), lay.lane_x(b, r.lanes[b])
            pts += [(la, py), (la, r.bus_y), (lb, r.bus_y), (lb, ty)]
        pts.append((inner, ty))
        for x, y in pts:
            svg.grow(x, y)
        dash = ' stroke-dasharray="6 4"' if r.part.alternative else ""
        svg.add(
            '<polyline class="wire" points="%s" fill="none" stroke="%s" stroke-width="2.2"'
            ' stroke-linejoin="round"%s%s/>'
            % (
                " ".join("%s,%s" % (_f(x), _f(y)) for x, y in pts),
                r.colour,
                dash,
                _attrs(
                    key=r.wire.key,
                    gpio=r.wire.gpio,
                    pin=r.wire.pin.number,
                    net=r.wire.net,
                    part=r.part.slug,
                    part_pin=r.part.pins[r.index].label,
                ),
            )
        )
        svg.add('<circle cx="%s" cy="%s" r="2.5" fill="%s"/>' % (_f(px), _f(py), r.colour))
        if r.wire.via:
            # The diode is in this wire alone: marked on its last run, at the part.
            (x1, y1), (x2, _y2) = pts[-2], pts[-1]
            # A diode symbol pointing the way the current flows: from the part to the board.
            arrow = " \u25b6|" if side == "left" else " |\u25c0"
            svg.text((x1 + x2) / 2, y1 - 4, r.wire.via + arrow, 9, "middle", "#b71c1c", "bold")


def _draw_captions(svg, lay, title, source, marks):
    """Title, the on-board list, notes, licence."""
    by = lay.by
    x_min = min(svg.xs)
    above = by - 3 * SCALE - LANE * (lay.top_bus + 1)
    svg.text(x_min, above - 34, title, 15, "start", "#111", "bold")
    svg.text(
        x_min,
        above - 18,
        "top view; every GPIO the board file names, at its pin on the header",
        10,
        "start",
        "#555",
    )
    y = max(svg.ys) + 24
    for n, ob in marks:
        svg.add('<g class="onboard"%s>' % _attrs(key=ob.key, gpio=ob.value))
        svg.add('<circle cx="%s" cy="%s" r="7" fill="#e65100"/>' % (_f(x_min + 7), _f(y - 4)))
        svg.text(x_min + 7, y, str(n), 10, "middle", "#fff", "bold")
        svg.text(x_min + 20, y, "%s  [%s: %s]" % (ob.text, ob.key, json.dumps(ob.value)), 11)
        svg.add("</g>")
        y += 18
    for note in lay.d.notes:
        svg.text(x_min, y, note, 11, "start", "#333")
        y += 18
    svg.text(
        x_min,
        y + 4,
        "goclock (MIT licence). Drawn by python -m tools.hardware.wiring from %s: do not edit."
        % source,
        9,
        "start",
        "#777",
    )


def _svg_text(svg, d, title, source):
    """The document: its size in whole pixels (a PNG of it has the same), then the items."""
    x0, y0 = math.floor(min(svg.xs) - 16), math.floor(min(svg.ys) - 16)
    width, height = math.ceil(max(svg.xs) + 16 - x0), math.ceil(max(svg.ys) + 16 - y0)
    head = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="%s %s %s %s"'
        ' font-family="%s" data-board="%s" data-source="%s">\n'
        "<title>%s</title>\n"
        "<metadata>goclock wiring diagram. MIT licence, the goclock contributors.</metadata>\n"
        '<rect x="%s" y="%s" width="%s" height="%s" fill="#ffffff"/>\n'
        % (
            _f(width),
            _f(height),
            _f(x0),
            _f(y0),
            _f(width),
            _f(height),
            FONT,
            escape(d.name),
            escape(source),
            escape(title),
            _f(x0),
            _f(y0),
            _f(width),
            _f(height),
        )
    )
    return head + "\n".join(svg.items) + "\n</svg>\n"


def _speaker(svg, part, outer, top, side):
    """The amplifier's speaker terminals on the box's outer edge, wired to a speaker."""
    title, terminals = part.outputs
    sign = -1 if side == "left" else 1
    ys = [top + 30 + NOTE_ROW * len(part.notes) + 22 * k for k in range(len(terminals))]
    sx = outer + sign * 46
    for label, y in zip(terminals, ys):
        svg.add('<circle cx="%s" cy="%s" r="3.5" fill="#fff" stroke="#555"/>' % (_f(outer), _f(y)))
        svg.text(outer - sign * 8, y + 4, label, 10, "end" if sign > 0 else "start")
        svg.add(
            '<polyline points="%s,%s %s,%s" fill="none" stroke="#555" stroke-width="2"/>'
            % (_f(outer), _f(y), _f(sx), _f(y))
        )
    cy = sum(ys) / len(ys)
    cone = [
        (sx, cy - 14),
        (sx + sign * 8, cy - 14),
        (sx + sign * 22, cy - 26),
        (sx + sign * 22, cy + 26),
        (sx + sign * 8, cy + 14),
        (sx, cy + 14),
    ]
    for x, y in cone:
        svg.grow(x, y)
    svg.add(
        '<polygon points="%s" fill="#eceff1" stroke="#555" stroke-width="1.5"/>'
        % " ".join("%s,%s" % (_f(x), _f(y)) for x, y in cone)
    )
    svg.text(sx + sign * 11, cy + 42, title, 10, "middle", "#333")


# ----- files ------------------------------------------------------------------------------


def load_board(path):
    with open(path) as f:
        spec = json.load(f)
    if not isinstance(spec, dict):
        raise BoardFileError("%s: not a JSON object" % path)
    return spec


def board_paths(names=()):
    if names:
        return [os.path.join(BOARDS, n + ".json") for n in names]
    return sorted(os.path.join(BOARDS, n) for n in os.listdir(BOARDS) if n.endswith(".json"))


def svg_for(path):
    name = os.path.basename(path)[:-5]
    return render(diagram(name, load_board(path)), "boards/%s.json" % name)


def svg_digest(text):
    return hashlib.sha256(text.encode()).hexdigest()


def write_png(svg_path, png_path, svg_text):
    """The SVG as a PNG (rsvg-convert), stamped with the SVG's digest."""
    subprocess.run(["rsvg-convert", "-o", png_path, svg_path], check=True)
    with open(png_path, "rb") as f:
        data = f.read()
    data = pngmeta.with_text(
        data,
        {
            "Source": "drawn from %s by tools/hardware/wiring.py" % os.path.basename(svg_path),
            "Source-SHA256": svg_digest(svg_text),
            "Copyright": "goclock contributors, MIT licence",
        },
    )
    with open(png_path, "wb") as f:
        f.write(data)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.hardware.wiring", description=__doc__)
    ap.add_argument("boards", nargs="*", help="board names (default: every boards/*.json)")
    ap.add_argument("--out", default=OUT, help="where the images go (docs/img)")
    ap.add_argument("--no-png", action="store_true", help="only the SVGs")
    ap.add_argument("--check", action="store_true", help="only say which images are stale")
    args = ap.parse_args(argv)
    stale = []
    png = not args.no_png and shutil.which("rsvg-convert") is not None
    if not args.no_png and not png and not args.check:
        print("[wiring] rsvg-convert is missing (python -m tools.hardware.debian): SVGs only")
    for path in board_paths(args.boards):
        name = os.path.basename(path)[:-5]
        try:
            text = svg_for(path)
        except (BoardFileError, KeyError, OSError, ValueError) as e:
            print("[wiring] %s: %s" % (name, e))
            return 2
        svg_path = os.path.join(args.out, "wiring-%s.svg" % name)
        png_path = svg_path[:-4] + ".png"
        old = open(svg_path).read() if os.path.exists(svg_path) else None
        png_ok = os.path.exists(png_path) and pngmeta.read_text(open(png_path, "rb").read()).get(
            "Source-SHA256"
        ) == svg_digest(text)
        if args.check:
            if old != text or not png_ok:
                stale.append(name)
            continue
        os.makedirs(args.out, exist_ok=True)
        if old != text:
            with open(svg_path, "w") as f:
                f.write(text)
            print("[wiring] wrote %s" % os.path.relpath(svg_path))
        if png and not png_ok:
            write_png(svg_path, png_path, text)
            print("[wiring] wrote %s" % os.path.relpath(png_path))
    if stale:
        print("[wiring] stale: %s (python -m tools.hardware.wiring)" % ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
