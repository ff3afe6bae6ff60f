"""The boards' pin headers and on-board parts, as the wiring diagrams draw them.

Facts from the boards' datasheets (Raspberry Pi Pico and Pico W datasheets, section
"Pinout"; Espressif's ESP32-DevKitC V4 getting-started guide, headers J2/J3 as in its
schematic). Coordinates are millimetres from the board's top-left corner, top view,
the Pico with its USB connector up, the DevKitC with its antenna up. The header pitch
and the board outlines follow the datasheets; where an on-board part sits (a button,
the LED) is approximate: enough to find it on the board, not a footprint.
"""

from dataclasses import dataclass, field

PITCH = 2.54


@dataclass(frozen=True)
class Pin:
    number: str  # as printed in the board's documents: "19" (Pico), "J2-7" (DevKitC)
    name: str  # "GP14", "GND", "VSYS", "IO32"
    x: float
    y: float
    gpio: "int | None" = None  # the GPIO number a board file names it by


@dataclass(frozen=True)
class Feature:
    """Something on the board itself: a button, the LED, a connector, a chip."""

    kind: str  # "usb", "button", "led", "chip", "module"
    label: str
    x: float
    y: float
    w: float
    h: float
    gpio: "int | str | None" = None  # what a board file calls it ("bootsel", "LED", 0)


@dataclass(frozen=True)
class Header:
    title: str
    width: float
    height: float
    pins: tuple
    features: tuple
    power: dict  # "3v3" / "amp" (the amplifier's supply) -> pin name on the header
    internal: dict = field(default_factory=dict)  # GPIO not on the header -> what it is

    def side(self, pin):
        return "left" if pin.x < self.width / 2 else "right"

    def pin_of_gpio(self, gpio):
        for p in self.pins:
            if p.gpio == gpio:
                return p
        return None

    def pins_named(self, name):
        return [p for p in self.pins if p.name == name]

    def feature_of(self, gpio):
        for f in self.features:
            if f.gpio == gpio:
                return f
        return None


# Raspberry Pi Pico: pins 1-20 down the left edge, 21-40 up the right edge.
_PICO_LEFT = (
    "GP0 GP1 GND GP2 GP3 GP4 GP5 GND GP6 GP7 GP8 GP9 GND GP10 GP11 GP12 GP13 GND GP14 GP15"
).split()
_PICO_RIGHT = (  # pin 21 (bottom right) up to pin 40 (top right)
    "GP16 GP17 GND GP18 GP19 GP20 GP21 GND GP22 RUN GP26 GP27 AGND GP28 ADC_VREF "
    "3V3 3V3_EN GND VSYS VBUS"
).split()


def _gpio(name):
    for prefix in ("GP", "IO"):
        if name.startswith(prefix) and name[len(prefix) :].isdigit():
            return int(name[len(prefix) :])
    return None


def _pico_pins():
    top = (51 - 19 * PITCH) / 2
    pins = []
    for i, name in enumerate(_PICO_LEFT):
        pins.append(Pin(str(i + 1), name, 1.61, round(top + i * PITCH, 2), _gpio(name)))
    for i, name in enumerate(_PICO_RIGHT):
        y = round(top + (19 - i) * PITCH, 2)
        pins.append(Pin(str(21 + i), name, 19.39, y, _gpio(name)))
    return tuple(pins)


def _pico(title, led_label, chip_label):
    return Header(
        title=title,
        width=21.0,
        height=51.0,
        pins=_pico_pins(),
        features=(
            Feature("usb", "USB", 6.5, -1.3, 8.0, 5.6),
            Feature("led", led_label, 6.2, 4.8, 1.8, 1.1, "LED"),
            Feature("button", "BOOTSEL", 7.0, 10.0, 4.8, 2.8, "bootsel"),
            Feature("chip", chip_label, 7.0, 21.0, 7.0, 7.0),
        ),
        power={"3v3": "3V3", "amp": "VSYS", "battery": "VSYS", "usb": "VBUS"},
        internal={
            29: "GP29 (ADC3) reads VSYS \u00f7 3 through the board's own divider",
            25: "GP25 high while VSYS is read (the radio's chip select shares GP29)",
        },
    )


PICO = _pico("Raspberry Pi Pico", "LED (GP25)", "RP2040")
PICO_W = _pico("Raspberry Pi Pico W", "LED (on the radio)", "RP2040")

# ESP32-DevKitC V4: J2 down the left edge, J3 down the right edge (antenna up).
_J2 = "3V3 EN IO36 IO39 IO34 IO35 IO32 IO33 IO25 IO26 IO27 IO14 IO12 GND IO13 IO9 IO10 IO11 5V"
_J3 = "GND IO23 IO22 IO1 IO3 IO21 GND IO19 IO18 IO5 IO17 IO16 IO4 IO0 IO2 IO15 IO8 IO7 IO6"
# Names as printed on the board where they differ from IOn (the flash pins, the UART).
_PRINTED = {
    "IO36": "VP",
    "IO39": "VN",
    "IO9": "SD2",
    "IO10": "SD3",
    "IO11": "CMD",
    "IO1": "TX",
    "IO3": "RX",
    "IO8": "SD1",
    "IO7": "SD0",
    "IO6": "CLK",
}


def _devkitc_pins():
    pins = []
    for header, x, names in (("J2", 1.27, _J2.split()), ("J3", 26.67, _J3.split())):
        for i, name in enumerate(names):
            pins.append(
                Pin(
                    "%s-%d" % (header, i + 1),
                    _PRINTED.get(name, name),
                    x,
                    round(7.62 + i * PITCH, 2),
                    _gpio(name),
                )
            )
    return tuple(pins)


DEVKITC = Header(
    title="ESP32-DevKitC V4",
    width=27.94,
    height=55.0,
    pins=_devkitc_pins(),
    features=(
        Feature("module", "ESP32-WROOM-32", 5.0, 0.0, 18.0, 25.5),
        Feature("usb", "USB", 10.5, 50.5, 7.0, 5.8),
        Feature("button", "EN", 6.2, 49.0, 3.6, 2.6),
        Feature("button", "BOOT", 18.2, 49.0, 3.6, 2.6, 0),
    ),
    power={"3v3": "3V3", "amp": "5V", "battery": "5V", "usb": "5V"},
)

HEADERS = {"pico": PICO, "pico-w": PICO_W, "esp32-devkitc": DEVKITC}


def header_for(board_name):
    """The header drawing of a board file's `board`: exact, or the longest known name it
    starts with (a variant such as "pico-case" is drawn as a "pico")."""
    best = None
    for name in HEADERS:
        if board_name == name or board_name.startswith(name + "-"):
            if best is None or len(name) > len(best):
                best = name
    if best is None:
        raise KeyError(
            "no header drawing for board %r (known: %s; add one to tools/hardware/headers.py)"
            % (board_name, ", ".join(sorted(HEADERS)))
        )
    return HEADERS[best]
