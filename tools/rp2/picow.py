"""The Pico W's static RAM that a Pico leaves to the heap, computed from sources (not measured).

An RPI_PICO_W image cannot be built from Debian (tools/rp2/README.md, "The Pico W's RAM"):
the micropython source package has no lib/lwip, lib/cyw43-driver or lib/btstack. The rp2
port's GC heap is whatever RAM `.bss` leaves (its linker script), so the Pico W's heap is
the Pico's less the static state those three add:

- **lwIP**: the `lwip` source package of Debian trixie (fetched through build.py's own apt
  configuration), compiled for the Cortex-M0+ with the rp2 port's own `lwipopts.h`
  (ports/rp2/lwip_inc, which takes extmod/lwip-include/lwipopts_common.h: MEM_SIZE 8000,
  TCP_MSS 800, 32 TCP segments, IPv4 and IPv6, mDNS), the files the port's CMake lists
  (extmod/extmod.cmake; PPP left out: off on rp2): the objects' `.bss` and `.data`.
- **CYW43**: the driver's state, `cyw43_t` (cyw43-driver's src/cyw43.h, in no Debian
  package): its low-level state is CYW43_LL_STATE_SIZE_WORDS words (src/cyw43_ll.h: for
  SPI, 526 + 1 + 16/4 + 1, and 4 more with the port's
  CYW43_INCLUDE_LEGACY_F1_OVERFLOW_WORKAROUND_VARIABLES), then the AP settings, two lwIP
  netifs, a DHCP client and MicroPython's DHCP server: that struct compiled here with
  lwIP's headers and the port's options.
- **BTstack** (on in RPI_PICO_W's board file): its source is in no Debian package either.
  Counted are only its two HCI packet buffers, each of HCI_ACL_PAYLOAD_SIZE (1021, the
  port's btstack config) and a 4-byte header: the HCI stack's outgoing one and the CYW43
  HCI transport's incoming one (pico-sdk's btstack_hci_transport_cyw43.c). Its pools and
  state come on top.

    python -m tools.rp2.picow        # prints each part, and the heap a Pico W leaves
"""

import fcntl
import glob
import os
import re
import subprocess
import sys
import tempfile

from . import build

PICO_HEAP = 246144  # the emulated Pico's GC heap (tools/rp2/heapmap.py)
CYW43_LL_WORDS = 526 + 1 + (16 // 4 + 1) + 4
BTSTACK_HCI_BUFFERS = 2 * (4 + 1021)
CFLAGS = ["-mcpu=cortex-m0plus", "-mthumb", "-Os", "-ffunction-sections", "-fdata-sections"]

CYW43_STATE = (
    """
#include "lwip/netif.h"
#include "lwip/dhcp.h"
#include "shared/netutils/dhcpserver.h"
struct cyw43_state {  /* cyw43_t, CYW43_LWIP and CYW43_NETUTILS as the rp2 port sets them */
    unsigned int cyw43_ll[%d];
    unsigned char itf_state; unsigned int trace_flags; volatile unsigned int wifi_scan_state;
    unsigned int wifi_join_state; void *wifi_scan_env; int (*wifi_scan_cb)(void *, const void *);
    _Bool initted, pend_disassoc, pend_rejoin, pend_rejoin_wpa;
    unsigned int ap_auth; unsigned char ap_channel, ap_ssid_len, ap_key_len;
    unsigned char ap_ssid[32]; unsigned char ap_key[64];
    struct netif netif[2];
    struct dhcp dhcp_client;
    dhcp_server_t dhcp_server;
    unsigned char mac[6];
    _Bool bt_loaded;
} cyw43_state;
"""
    % CYW43_LL_WORDS
)


def _lwip_source(cache, work):
    """Debian's lwIP source tree, unpacked under `work`; (its version, its src/ folder)."""
    apt = build.PrivateApt(os.path.join(cache, "apt"))
    apt.update()
    version = apt.source_version("lwip")
    build.run(["apt-get", *apt.opts, "source", "--download-only", "lwip=" + version], cwd=work)
    dsc = glob.glob(os.path.join(work, "lwip_*.dsc"))[0]
    build.run(["dpkg-source", "-x", dsc, os.path.join(work, "lwip")])
    return version, os.path.join(work, "lwip", "src")


def _port_files(mp, src):
    """The lwIP files the rp2 port compiles (extmod/extmod.cmake), PPP left out."""
    with open(os.path.join(mp, "extmod", "extmod.cmake")) as f:
        text = f.read()
    names = re.findall(r"\$\{MICROPY_LIB_LWIP_DIR\}/(\S+\.c)", text)
    return [os.path.join(src, n) for n in names if not n.startswith("netif/ppp/")]


def _static_bytes(objects):
    """.data + .bss of the objects (arm-none-eabi-size's Berkeley columns)."""
    out = subprocess.run(
        ["arm-none-eabi-size", "-t", *objects], capture_output=True, text=True, check=True
    ).stdout
    _text, data, bss = out.strip().splitlines()[-1].split()[:3]
    return int(data) + int(bss)


def measure(work):
    """The parts, in bytes; under build.py's lock (a build may replace the tree meanwhile)."""
    cache = build.cache_dir()
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _measure(cache, work)


def _measure(cache, work):
    tree, _key = build.prepare_tree(cache)
    mp = os.path.join(tree, "micropython")
    version, src = _lwip_source(cache, work)
    stub = os.path.join(work, "stub", "py")
    os.makedirs(stub)
    with open(os.path.join(stub, "mpconfig.h"), "w") as f:
        f.write("#include <stdint.h>\n")  # all lwipopts_common.h takes from it
    inc = [
        "-I" + os.path.join(mp, "ports", "rp2", "lwip_inc"),
        "-I" + os.path.dirname(stub),
        "-I" + mp,
        "-I" + os.path.join(src, "include"),
    ]
    objects = []
    for i, c in enumerate(_port_files(mp, src)):
        obj = os.path.join(work, "%02d.o" % i)
        subprocess.run(["arm-none-eabi-gcc", *CFLAGS, *inc, "-c", c, "-o", obj], check=True)
        objects.append(obj)
    state = os.path.join(work, "cyw43_state.c")
    with open(state, "w") as f:
        f.write(CYW43_STATE)
    subprocess.run(
        ["arm-none-eabi-gcc", *CFLAGS, *inc, "-c", state, "-o", state + ".o"], check=True
    )
    return {
        "lwip_version": version,
        "lwip_files": len(objects),
        "lwip": _static_bytes(objects),
        "cyw43": _static_bytes([state + ".o"]),
        "btstack_buffers": BTSTACK_HCI_BUFFERS,
    }


def main(argv=None):
    build.ensure_host_tools()
    with tempfile.TemporaryDirectory(prefix="goclock-picow-") as work:
        r = measure(work)
    total = r["lwip"] + r["cyw43"] + r["btstack_buffers"]
    print("lwIP %s, %d files as the rp2 port builds them: %d B (.data + .bss)"
          % (r["lwip_version"], r["lwip_files"], r["lwip"]))  # fmt: skip
    print("CYW43 driver state (cyw43_t): %d B" % r["cyw43"])
    print("BTstack: its two HCI packet buffers: %d B (its pools and state not counted)"
          % r["btstack_buffers"])  # fmt: skip
    print("in all: %d B at least; the Pico W's heap: at most %d B (the Pico's %d B less it)"
          % (total, PICO_HEAP - total, PICO_HEAP))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
