"""Build a MicroPython UF2 for the Raspberry Pi Pico from Debian packages, and cache it.

No package registry ships a Pico image, but Debian ships everything that builds one:
the `micropython` source package (trixie: 1.25 with ports/rp2, its git submodules in lib/
left empty), `pico-sdk-source` and `tinyusb-source` (trixie), the `mbedtls` source, and
the ARM toolchain and cmake (bookworm, the machine's own). The trixie packages come
through an apt configuration of this build's own (a private sources list, lists and
archive directories under the cache), which leaves the machine's apt sources alone; the
archive is the one the machine's own sources name, with the suite `trixie`.

Hurdles, each handled here and nowhere else:
- the submodules: the pico-sdk, tinyusb and mbedtls packages are linked into lib/, and
  the README placeholders that the build checks for are created empty;
- the board manifest's require() lines need micropython-lib, which Debian does not ship:
  patches/0001 drops them (onewire, ds18x20, dht, neopixel: nothing goclock uses);
- picotool is not packaged: PICO_NO_PICOTOOL=1, then uf2.py turns firmware.bin into a UF2.

The plain image has a ROMFS partition (ROMFS_BYTES, MicroPython's own MICROPY_HW_ROMFS_BYTES:
the stock RPI_PICO board leaves it 0), between the code and the file system, which stays
where it is: a deploy may put the firmware's .mpy files there, and MicroPython runs their
bytecode in place from flash instead of loading it into the heap (tools/rp2/romfs.py). The
frozen image needs none (its bytecode is in the image).
(MicroPython 1.25's mpy-tool.py cannot freeze a float constant beyond single precision;
the firmware keeps none, so that needs no patch.)

A build takes minutes, so its result is cached, keyed on a hash of its inputs: the pinned
package versions, the patches, this script and uf2.py, the toolchain's version, and the
frozen manifest with every file it freezes. Default cache: ~/.cache/goclock/rp2
(GOCLOCK_RP2_CACHE moves it). A second run with the same inputs takes seconds and needs
no network.

    python -m tools.rp2.build                               # plain MicroPython
    python -m tools.rp2.build --frozen boards/manifest.py   # goclock frozen in
    python -m tools.rp2.build --frozen M --out build/rp2/fw.uf2

The UF2's path is printed on stdout (and copied to --out when given).
"""

import argparse
import fcntl
import glob
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BOARD = "RPI_PICO"
SUITE = "trixie"
# The plain image's ROMFS partition: below the file system (ports/rp2/rp2_flash.c puts it at
# MICROPY_HW_FLASH_STORAGE_BASE - MICROPY_HW_ROMFS_BYTES, 2 MiB - 1408 KiB - this), above
# the code, which must end below it (checked after each build).
ROMFS_BYTES = 256 * 1024
STORAGE_BASE = 2048 * 1024 - 1408 * 1024
ROMFS_BASE = STORAGE_BASE - ROMFS_BYTES

# The Debian packages a build uses, pinned: the cache key is known without asking the
# archive, and every build from a cold cache gets the same sources. When a point release
# replaces one of these in the archive, the build says so: update the version here (or run
# with GOCLOCK_RP2_FOLLOW_ARCHIVE=1 to take what the archive has).
SOURCES = {"micropython": "1.25.0+ds-1", "mbedtls": "3.6.6-0.1~deb13u1"}
BINARIES = {"pico-sdk-source": "2.1.1-1", "tinyusb-source": "0.18.0+dfsg-1"}
# From the machine's own (bookworm) sources: the cross toolchain and the host build tools.
HOST_PACKAGES = (
    "gcc-arm-none-eabi",
    "libnewlib-arm-none-eabi",
    "libstdc++-arm-none-eabi-newlib",
    "cmake",
    "make",
    "gcc",
    "g++",
    "python3",
    "dpkg-dev",
    "patch",
    "xz-utils",
    "bzip2",
)
HOST_TOOLS = ("arm-none-eabi-gcc", "cmake", "make", "cc", "c++", "dpkg-source", "patch")
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


def log(msg):
    print("[rp2 build] " + msg, file=sys.stderr, flush=True)


def run(cmd, cwd=None, quiet=True, env=None):
    """Run a command (`env`: more environment variables); on failure show its output and
    stop."""
    proc = subprocess.run(
        cmd,
        cwd=cwd,
        env=dict(os.environ, **env) if env else None,
        stdout=subprocess.PIPE if quiet else None,
        stderr=subprocess.STDOUT if quiet else None,
        text=True,
        check=False,
    )
    if proc.returncode:
        if quiet:
            sys.stderr.write("\n".join(proc.stdout.splitlines()[-40:]) + "\n")
        raise SystemExit("[rp2 build] failed (%d): %s" % (proc.returncode, " ".join(cmd)))
    return proc.stdout if quiet else ""


def cache_dir():
    return os.environ.get("GOCLOCK_RP2_CACHE") or os.path.expanduser("~/.cache/goclock/rp2")


def _sha(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def _file_bytes(path):
    with open(path, "rb") as f:
        return f.read()


# ----- host tools (the machine's own apt) -------------------------------------------


def ensure_host_tools(install=True):
    missing = [t for t in HOST_TOOLS if shutil.which(t) is None]
    if not missing:
        return
    if not install or os.geteuid() != 0:
        raise SystemExit(
            "[rp2 build] missing %s: apt-get install %s"
            % (", ".join(missing), " ".join(HOST_PACKAGES))
        )
    log("installing %s (missing: %s)" % (" ".join(HOST_PACKAGES), ", ".join(missing)))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update"], check=True, env=env, stdout=subprocess.DEVNULL)
    subprocess.run(
        ["apt-get", "install", "-y", "--no-install-recommends", *HOST_PACKAGES],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )


def toolchain_id():
    """What of the host toolchain goes into the image (a new compiler: a new build)."""
    out = []
    for cmd in (["arm-none-eabi-gcc", "--version"], ["cmake", "--version"]):
        out.append(run(cmd).splitlines()[0])
    return out


# ----- the private apt for trixie ----------------------------------------------------


def _machine_archive():
    """(URI, keyring) of the Debian archive the machine's own apt sources use."""
    override = os.environ.get("GOCLOCK_RP2_ARCHIVE")
    if override:
        return override, KEYRING
    stanzas = []
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        with open(path) as f:
            stanzas += f.read().split("\n\n")
    for stanza in stanzas:
        fields = {}
        for line in stanza.splitlines():
            if ":" in line and not line.startswith((" ", "#")):
                k, v = line.split(":", 1)
                fields[k.strip().lower()] = v.strip()
        suites = fields.get("suites", "").split()
        if "deb" in fields.get("types", "").split() and any("-" not in s for s in suites):
            return fields["uris"].split()[0], fields.get("signed-by", KEYRING)
    if os.path.exists("/etc/apt/sources.list"):
        with open("/etc/apt/sources.list") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[0] == "deb" and "-" not in parts[-2]:
                    uri = [p for p in parts[1:] if not p.startswith("[")][0]
                    return uri, KEYRING
    raise SystemExit("[rp2 build] no Debian archive in the machine's apt sources")


class PrivateApt:
    """apt-get with a sources list, lists and archives of this build's own (trixie)."""

    def __init__(self, root):
        self.root = root
        for d in ("lists/partial", "archives/partial", "sources.list.d"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        uri, keyring = _machine_archive()
        with open(os.path.join(root, "sources.list"), "w") as f:
            for kind in ("deb", "deb-src"):
                f.write("%s [signed-by=%s] %s %s main\n" % (kind, keyring, uri, SUITE))
        self.opts = [
            "-o", "Dir::Etc::SourceList=" + os.path.join(root, "sources.list"),
            "-o", "Dir::Etc::SourceParts=" + os.path.join(root, "sources.list.d"),
            "-o", "Dir::State::Lists=" + os.path.join(root, "lists"),
            "-o", "Dir::Cache=" + root,
            "-o", "Dir::Cache::archives=" + os.path.join(root, "archives"),
            "-o", "APT::Sandbox::User=root",
            "-o", "Acquire::Languages=none",
        ]  # fmt: skip
        self.updated = False

    def update(self):
        if not self.updated:
            run(["apt-get", *self.opts, "update"])
            self.updated = True

    def candidate(self, name):
        out = run(["apt-cache", *self.opts, "policy", name])
        for line in out.splitlines():
            if line.strip().startswith("Candidate:"):
                return line.split(":", 1)[1].strip()
        return None

    def source_version(self, name):
        out = run(["apt-cache", *self.opts, "showsrc", name])
        versions = [
            ln.split(":", 1)[1].strip() for ln in out.splitlines() if ln.startswith("Version:")
        ]
        return versions[0] if versions else None

    def fetch(self, dest, binaries, sources):
        """Download the binary packages and the source packages (as pinned) into `dest`."""
        self.update()
        follow = os.environ.get("GOCLOCK_RP2_FOLLOW_ARCHIVE") == "1"
        want_bin = dict(binaries)
        want_src = dict(sources)
        for table, probe in ((want_bin, self.candidate), (want_src, self.source_version)):
            for name, version in table.items():
                have = probe(name)
                if have != version:
                    if not follow:
                        raise SystemExit(
                            "[rp2 build] %s %s is pinned, the archive has %s: update the pin in "
                            "tools/rp2/build.py (or GOCLOCK_RP2_FOLLOW_ARCHIVE=1)"
                            % (name, version, have)
                        )
                    log("%s: taking %s from the archive (pinned %s)" % (name, have, version))
                    table[name] = have
        os.makedirs(dest, exist_ok=True)
        run(
            ["apt-get", *self.opts, "download", *("%s=%s" % kv for kv in want_bin.items())],
            cwd=dest,
        )
        run(
            [
                "apt-get",
                *self.opts,
                "source",
                "--download-only",
                *("%s=%s" % kv for kv in want_src.items()),
            ],
            cwd=dest,
        )
        return want_bin, want_src


# ----- the source tree --------------------------------------------------------------


def _patches():
    return sorted(glob.glob(os.path.join(HERE, "patches", "*.patch")))


def tree_key():
    parts = [json.dumps([SOURCES, BINARIES, BOARD], sort_keys=True)]
    for p in _patches() + [os.path.abspath(__file__), os.path.join(HERE, "uf2.py")]:
        parts += [os.path.basename(p), _file_bytes(p)]
    return _sha(*parts)


def prepare_tree(cache):
    """The MicroPython tree ready for ports/rp2 (cached); returns its directory."""
    key = tree_key()
    tree = os.path.join(cache, "src-" + key)
    if os.path.exists(os.path.join(tree, ".done")):
        return tree, key
    t0 = time.monotonic()
    tmp = tree + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    dl = os.path.join(cache, "dl")
    apt = PrivateApt(os.path.join(cache, "apt"))
    log("fetching %s from Debian %s" % (", ".join(list(SOURCES) + list(BINARIES)), SUITE))
    bins, srcs = apt.fetch(dl, BINARIES, SOURCES)
    for name, version in srcs.items():
        dsc = os.path.join(dl, "%s_%s.dsc" % (name, version.split(":")[-1]))
        run(["dpkg-source", "-x", dsc, os.path.join(tmp, name)])
    debs = os.path.join(tmp, "debs")
    for name, version in bins.items():
        deb = glob.glob(os.path.join(dl, "%s_%s_*.deb" % (name, version.split(":")[-1])))[0]
        run(["dpkg-deb", "-x", deb, debs])
    mp = os.path.join(tmp, "micropython")
    lib = os.path.join(mp, "lib")
    # The submodules the rp2 build needs, from the packages (relative links: the tree moves).
    for sub, target in (
        ("pico-sdk", "../../debs/usr/src/pico-sdk"),
        ("tinyusb", "../../debs/usr/src/tinyusb"),
        ("mbedtls", "../../mbedtls"),
    ):
        path = os.path.join(lib, sub)
        if os.path.isdir(path) and not os.listdir(path):
            os.rmdir(path)
        os.symlink(target, path)
    # The build checks for these files to tell a checked-out submodule: placeholders.
    for placeholder in ("pico-sdk/README.md", "micropython-lib/README.md"):
        path = os.path.join(lib, placeholder)
        if not os.path.exists(path):
            open(path, "w").close()
    for patch in _patches():
        run(["patch", "-p1", "-d", mp, "-i", patch])
    with open(os.path.join(tmp, "versions.json"), "w") as f:
        json.dump({"sources": srcs, "binaries": bins}, f, indent=1)
    open(os.path.join(tmp, ".done"), "w").close()
    shutil.rmtree(tree, ignore_errors=True)
    os.rename(tmp, tree)
    # Trees and build directories of other inputs are stale now: keep the cache small.
    for old in glob.glob(os.path.join(cache, "src-*")) + glob.glob(os.path.join(cache, "build-*")):
        if not os.path.basename(old).startswith(("src-" + key, "build-" + key)):
            shutil.rmtree(old, ignore_errors=True)
    log("sources ready in %.0f s: %s" % (time.monotonic() - t0, tree))
    return tree, key


# ----- the image --------------------------------------------------------------------


def manifest_inputs(tree, manifest):
    """[(name, bytes)] of the manifest files read and every file frozen, as the build sees
    them (MicroPython's own tools/manifestfile.py evaluates the manifest)."""
    mp = os.path.join(tree, "micropython")
    spec = importlib.util.spec_from_file_location(
        "manifestfile", os.path.join(mp, "tools", "manifestfile.py")
    )
    manifestfile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(manifestfile)
    port = os.path.join(mp, "ports", "rp2")
    m = manifestfile.ManifestFile(
        manifestfile.MODE_FREEZE,
        {
            "MPY_DIR": mp,
            "MPY_LIB_DIR": os.path.join(mp, "lib", "micropython-lib"),
            "PORT_DIR": port,
            "BOARD_DIR": os.path.join(port, "boards", BOARD),
        },
    )
    m.execute(manifest)
    out = [("manifest:" + os.path.basename(p), _file_bytes(p)) for p in sorted(m._visited)]
    for r in m.files():
        out.append((r.target_path, _file_bytes(r.full_path)))
    return out


def image_key(tree_k, tree, manifest):
    parts = [tree_k, BOARD, *toolchain_id()]
    for name, data in manifest_inputs(tree, manifest):
        parts += [name, data]
    return _sha(*parts)


def build(manifest=None, cache=None, jobs=None, install=True):
    """The UF2 for `manifest` (None: the board's own), built or taken from the cache."""
    cache = cache or cache_dir()
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        ensure_host_tools(install)
        tree, tk = prepare_tree(cache)
        port = os.path.join(tree, "micropython", "ports", "rp2")
        board_manifest = os.path.join(port, "boards", "manifest.py")
        man = os.path.abspath(manifest) if manifest else board_manifest
        key = image_key(tk, tree, man)
        images = os.path.join(cache, "images")
        uf2 = os.path.join(images, "%s-%s.uf2" % ("frozen" if manifest else "plain", key))
        if os.path.exists(uf2):
            return uf2
        t0 = time.monotonic()
        log("building %s%s" % (BOARD, " with %s frozen in" % manifest if manifest else ""))
        # One build directory per manifest path: a changed manifest or firmware rebuilds
        # only what changed (the frozen modules), not the whole port.
        bdir = os.path.join(cache, "build-%s-%s" % (tk, _sha(man, *toolchain_id())))
        args = [
            "cmake", "-S", port, "-B", bdir,
            "-DMICROPY_BOARD=" + BOARD,
            "-DMICROPY_BOARD_DIR=" + os.path.join(port, "boards", BOARD),
            "-DPICO_BUILD_DOCS=0",
            "-DPICO_NO_PICOTOOL=1",
            "-DPython3_EXECUTABLE=" + sys.executable,
            "-DMICROPY_FROZEN_MANIFEST=" + man,
        ]  # fmt: skip
        # py/mkrules.cmake hands $CFLAGS_EXTRA, as cmake configures, to the compiler and
        # to the qstr scan alike (a -D of cmake's own reaches the compiler only).
        rom = 0 if manifest else ROMFS_BYTES
        run(args, env={"CFLAGS_EXTRA": "-DMICROPY_HW_ROMFS_BYTES=%d" % rom})
        run(["make", "-C", bdir, "-j%d" % (jobs or os.cpu_count() or 2)])
        code = os.path.getsize(os.path.join(bdir, "firmware.bin"))
        if not manifest and code > ROMFS_BASE:
            raise SystemExit(
                "the image's code (%d B) runs into its ROMFS partition at %d" % (code, ROMFS_BASE)
            )
        from .uf2 import bin_to_uf2

        os.makedirs(images, exist_ok=True)
        data = bin_to_uf2(_file_bytes(os.path.join(bdir, "firmware.bin")))
        with open(uf2 + ".tmp", "wb") as f:
            f.write(data)
        with open(os.path.join(tree, "versions.json")) as f:
            versions = json.load(f)
        meta = {
            "board": BOARD,
            "manifest": manifest,
            "packages": versions,
            "toolchain": toolchain_id(),
            "build_seconds": round(time.monotonic() - t0, 1),
            "firmware_bin_bytes": code,
            "romfs_bytes": rom,
        }
        with open(uf2[:-4] + ".json", "w") as f:
            json.dump(meta, f, indent=1)
        os.rename(uf2 + ".tmp", uf2)
        log("built in %.0f s: %s" % (time.monotonic() - t0, uf2))
        return uf2


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frozen", metavar="MANIFEST", help="freeze this manifest into the image")
    ap.add_argument("--out", help="copy the UF2 here too")
    ap.add_argument("--cache-dir", help="default: $GOCLOCK_RP2_CACHE or ~/.cache/goclock/rp2")
    ap.add_argument("--jobs", type=int, help="parallel compile jobs (default: all cores)")
    ap.add_argument("--no-install", action="store_true", help="never apt-get install tools")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    uf2 = build(args.frozen, args.cache_dir, args.jobs, install=not args.no_install)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        shutil.copyfile(uf2, args.out)
    log("%s ready in %.1f s" % (os.path.basename(uf2), time.monotonic() - t0))
    print(args.out or uf2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
