"""Turn a flat RP2040 flash image (firmware.bin) into a UF2 file.

picotool is what the pico-sdk normally uses for this, but Debian does not package it, so
the build runs the sdk with PICO_NO_PICOTOOL=1 and converts the .bin here. The format is
Microsoft's UF2 (https://github.com/microsoft/uf2): 512-byte blocks, each carrying 256
bytes of payload for one flash address, tagged with the RP2040 family id so that the
bootrom (and rp2040py's loader) accept it.
"""

import struct
import sys

MAGIC_START0 = 0x0A324655
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_FAMILY_ID = 0x00002000
RP2040_FAMILY_ID = 0xE48BFF56
FLASH_BASE = 0x10000000
PAYLOAD = 256


def bin_to_uf2(data, base=FLASH_BASE, family=RP2040_FAMILY_ID):
    """The UF2 bytes for `data` placed at flash address `base`."""
    if len(data) % PAYLOAD:
        data = data + bytes(PAYLOAD - len(data) % PAYLOAD)
    count = len(data) // PAYLOAD
    out = bytearray()
    for i in range(count):
        chunk = data[i * PAYLOAD : (i + 1) * PAYLOAD]
        header = struct.pack(
            "<8I",
            MAGIC_START0,
            MAGIC_START1,
            FLAG_FAMILY_ID,
            base + i * PAYLOAD,
            PAYLOAD,
            i,
            count,
            family,
        )
        block = header + chunk + bytes(476 - PAYLOAD) + struct.pack("<I", MAGIC_END)
        assert len(block) == 512
        out += block
    return bytes(out)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: uf2.py firmware.bin firmware.uf2", file=sys.stderr)
        return 2
    with open(argv[0], "rb") as f:
        data = f.read()
    with open(argv[1], "wb") as f:
        f.write(bin_to_uf2(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
