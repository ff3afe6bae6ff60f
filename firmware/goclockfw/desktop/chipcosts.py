"""What each chip charges for the things the firmware does to hardware: the cost model's figures.

Integers only (µs, bytes, counts). Where each figure comes from is said next to it and in
docs/chip-model.md; none has been measured on a physical board. The model that charges them
to a virtual timeline is desktop/chipmodel.py.

How a chip reacts while it is busy (`irq`, `serial`):
- "pio": the RP2040. A flash erase or program runs with interrupts off and the XIP flash
  stalled (flash_range_erase/program), so no handler and no scheduled callback runs; the
  player buttons are timed by PIO state machines (board/edgetimer.py), which run on and
  keep up to `pio_fifo` words each.
- "soft": the ESP32. Pin interrupts are soft: a small ISR queues the Python handler in the
  scheduler (`sched_depth` entries, shared with the I2S callback; a full queue drops the
  entry), and the handler reads ticks_ms() when it runs. While the flash is written the
  cache is off and no task runs, so queued handlers wait for the end of the write; so do
  they behind any blocking C call (an I2C transfer, a UART write waiting for its FIFO).
- serial "usb_cdc": the Pico's USB serial. A TX FIFO the host empties a packet at a time;
  a write that does not fit waits for room, up to a timeout, running scheduled callbacks;
  the line polls writable only with room for a 256-byte piece (the patched image's rule).
- serial "uart": the DevKitC's UART0 behind a USB bridge. The line drains at the baud rate
  whether or not the host reads; a write that does not fit the TX FIFO busy-waits.
"""

RP2040 = "rp2040"
ESP32 = "esp32"

# The SPI NOR flash of both boards (Winbond W25Q16JV on the Pico, W25Q32 class on the
# DevKitC modules), datasheet figures: 4 KB sector erase tSE 45 ms typical, 400 ms max; a
# program op within a page: 30 µs for its first byte (tBP1), 2.5 µs for each further one
# (tBP2), so a whole 256-byte page takes 0.67 ms, about the 0.7 ms of tPP (3 ms max).
_ERASE_TYP_US = 45000
_ERASE_MAX_US = 400000
_BYTE1_US = 30
_BYTE_NS = 2500

# SSD1306 on I2C at 400 kHz: 9 clocks a byte (8 bits and the ACK) = 22.5 µs; micropython-lib's
# ssd1306 sends a command as [addr, 0x80, cmd] and a page as [addr, 0x40, 128 bytes].
_I2C_NS_PER_BYTE = 22500

CHIPS = {
    RP2040: {
        "board": "pico",
        "irq": "pio",
        "erase_us": _ERASE_TYP_US,
        "erase_max_us": _ERASE_MAX_US,
        "byte1_us": _BYTE1_US,
        "byte_ns": _BYTE_NS,
        "page": 256,
        "pio_fifo": 8,  # RX FIFO joined: 8 words per state machine (RP2040 datasheet 3.2)
        "sched_depth": 8,  # MICROPY_SCHEDULER_DEPTH: only the I2S callback uses it here
        "serial": "usb_cdc",
        # TinyUSB CDC TX FIFO (CFG_TUD_CDC_TX_BUFSIZE) in goclock's Pico images
        # (tools/rp2/patches/0006; MicroPython's rp2 port: 256)
        "tx_fifo": 512,
        "usb_packet": 64,  # full-speed bulk packet; the reading host takes one a frame (1 ms)
        "usb_timeout_us": 500000,  # MICROPY_HW_USB_CDC_TX_TIMEOUT: a write waits this long
        # POLLOUT says writable with this much room: a 256-byte piece in goclock's images
        # (tools/rp2/patches/0002; stock MicroPython says so with 1 byte and a write that
        # does not fit waits the timeout)
        "usb_pollout_room": 256,
        "i2c_ns_per_byte": _I2C_NS_PER_BYTE,
    },
    ESP32: {
        "board": "esp32-devkitc",
        "irq": "soft",
        "erase_us": _ERASE_TYP_US,
        "erase_max_us": _ERASE_MAX_US,
        "byte1_us": _BYTE1_US,
        "byte_ns": _BYTE_NS,
        "page": 256,
        "pio_fifo": 0,
        "sched_depth": 8,  # the ESP32 port's MICROPY_SCHEDULER_DEPTH
        "serial": "uart",
        "tx_fifo": 128,  # the ESP32 UART's hardware TX FIFO (Technical Reference Manual, 13.3)
        "baud": 115200,  # 10 bits a byte: 86.8 µs
        "i2c_ns_per_byte": _I2C_NS_PER_BYTE,
    },
}


def chip_costs(name):
    """The figures of chip `name` ("rp2040" or "esp32"); ValueError for any other name."""
    try:
        return CHIPS[name]
    except KeyError:
        raise ValueError("unknown chip %r: rp2040 or esp32" % (name,)) from None
