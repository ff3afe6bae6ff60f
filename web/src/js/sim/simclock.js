// The goclock firmware running in the page: MicroPython's WebAssembly port, the real
// firmware package in its file system, the browser board (firmware/goclockfw/browser/),
// driven one loop pass at a time from the browser's timers, never by a blocking loop.
//
//     const clock = await startClock({ base: "./", canvas });
//     clock.press("tap:left")          // an input: runs a pass at once
//     clock.serial.onread = ...; clock.serial.write('{"id":1,"cmd":"status"}\n')
//
// Time: the clock's tick follows Date.now() (tests fake it with Playwright's clock). Each
// pass says how long the loop may sleep; a timer runs the next pass then, or sooner when
// an input or serial bytes come. Audio, display and flash are handed to Speaker,
// OledCanvas and FlashStore.

import { FlashStore } from "./flashstore.js";
import { OledCanvas } from "./oled.js";
import { VirtualLine } from "./serial.js";
import { Speaker } from "./speaker.js";

const TICKS_MAX = (1 << 30) - 1;
const FLASH = "/flash";
const SOUNDS = "/sounds";

async function fetchBytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status} ${r.statusText}`);
  return new Uint8Array(await r.arrayBuffer());
}

/** A voice pack bundle (build.mjs): Map of file name -> bytes. */
export function unpack(bytes) {
  const magic = String.fromCharCode(...bytes.subarray(0, 4));
  if (magic !== "GCPK") throw new Error("not a voice pack bundle");
  const len = bytes[4] | (bytes[5] << 8) | (bytes[6] << 16) | (bytes[7] << 24);
  const index = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + len)));
  const files = new Map();
  const base = 8 + len;
  for (const [name, [at, n]] of Object.entries(index)) files.set(name, bytes.subarray(base + at, base + at + n));
  return files;
}

export class SimClock {
  constructor({ base = "./", canvas = null, store = null, log = null } = {}) {
    this.base = new URL(base, globalThis.document?.baseURI ?? import.meta.url).href; // modules resolve from here
    this.mp = null;
    this.py = null; // the PageClock's run()
    this.store = store || new FlashStore();
    this.speaker = new Speaker();
    this.oled = canvas ? new OledCanvas(canvas) : null;
    this.serial = new VirtualLine(() => this.wake());
    this.log = log || (() => {});
    this.said = []; // {tick, phrase}: every phrase the announcer started
    this.view = null; // the newest view (display.view): text for screen readers
    this.led = 0;
    this.arbiterHeld = false;
    this.errors = 0;
    this.passes = 0;
    this.packs = [];
    this.listeners = new Set();
    this._inputs = [];
    this._timer = null;
    this._t0 = 0;
    this._running = false;
    this._inPass = false;
    this.timings = {};
  }

  /** The clock's tick: ms since the page started, wrapping at 2^30 as on a board. */
  tick() {
    return (Date.now() - this._t0) & TICKS_MAX;
  }

  on(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  _emit(what) {
    for (const fn of this.listeners) fn(what, this);
  }

  _mount(path, bytes) {
    const FS = this.mp.FS;
    FS.mkdirTree(path.slice(0, path.lastIndexOf("/")) || "/");
    FS.writeFile(path, bytes);
  }

  async _loadPack(name) {
    if (this._loaded?.has(name)) return;
    const t = performance.now();
    const files = unpack(await fetchBytes(`${this.base}sounds/${name}.pack`));
    const paths = new Map();
    for (const [file, bytes] of files) {
      const p = `${SOUNDS}/${name}/${file}`;
      this._mount(p, bytes);
      paths.set(p, bytes);
    }
    this.speaker.addFiles(paths);
    (this._loaded ||= new Set()).add(name);
    this.timings["pack_" + name] = Math.round(performance.now() - t);
  }

  async start() {
    const t0 = performance.now();
    const mark = (name) => (this.timings[name] = Math.round(performance.now() - t0));
    // The page's one MicroPython, the firmware under /lib (firmware.js): the configurator
    // checks time controls on the same one when it runs this clock.
    const [{ micropython }, packs] = await Promise.all([
      import("../firmware.js"),
      fetch(`${this.base}sounds/packs.json`).then((r) => r.json()),
      this.store.open(),
    ]);
    this.packs = packs;
    mark("fetched");
    const shared = await micropython(this.base, (line) => this.log(line));
    this.mp = shared.mp;
    this.firmwareVersion = shared.version;
    mark("micropython");
    this.mp.FS.mkdirTree(FLASH);
    for (const [path, bytes] of await this.store.load()) this._mount(path, bytes);
    mark("flash");
    const page = this.mp.pyimport("goclockfw.browser.page");
    mark("imported");
    const voice = page.voice_wanted();
    if (packs.includes(voice)) await this._loadPack(voice);
    mark("voice");
    this._t0 = Date.now();
    this._clock = page.PageClock(this.tick());
    this.py = this._clock.run;
    mark("booted");
    this._running = true;
    this._pass();
    mark("running");
    this.timings.since_navigation = Math.round(performance.now()); // from the page's start
    // The other packs afterwards, so that a config may pick them (`info` lists them).
    this.backgroundPacks = (async () => {
      for (const p of packs) if (p !== voice) await this._loadPack(p);
    })().catch((e) => this.log("voice packs: " + e));
    return this;
  }

  /** A button action: "tap:left", "tap:right", "tap:arbiter", "toggle:arbiter", "down:NAME", "up:NAME". */
  press(action) {
    this._inputs.push(action);
    this.wake();
  }

  wake() {
    if (!this._running || this._inPass) return;
    this._pass();
  }

  _pass() {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
    this._inPass = true;
    const now = this.tick();
    let report;
    try {
      report = JSON.parse(this.py(now, this._inputs.join(" "), this.serial.take()));
    } catch (e) {
      this._inPass = false;
      this._running = false;
      this.log("the firmware stopped: " + e);
      this._emit({ stopped: String(e) });
      return;
    }
    this._inputs = [];
    this.passes += 1;
    this._apply(now, report);
    this._inPass = false;
    if (this._inputs.length || this.serial.pending) {
      this._timer = setTimeout(() => this._pass(), 0); // what came during the pass
    } else {
      this._timer = setTimeout(() => this._pass(), Math.max(0, report.wait));
    }
  }

  _apply(now, r) {
    this.errors = r.errors;
    this.arbiterHeld = !!r.arbiter;
    for (const o of r.out || []) {
      if ("play" in o) this.speaker.play(now, o.play, o.volume);
      else if ("beep" in o) this.speaker.beep(now, o.beep);
      else if ("stop" in o) this.speaker.stop();
      else if ("say" in o) this.said.push({ tick: now, phrase: o.say, t: o.t });
      else if ("view" in o) this.view = o.view;
      else if ("led" in o) this.led = o.led;
      this._emit(o);
    }
    if (r.oled && this.oled) this.oled.show(r.oled);
    if (r.tx) this.serial.deliver(r.tx);
    if (r.changed) {
      const FS = this.mp.FS;
      const entries = r.changed.map((p) => [p, FS.analyzePath(p).exists ? FS.readFile(p) : null]);
      this.store.save(entries);
    }
    this._emit({ pass: now });
  }

  /** Stop the clock (the page is closing, or the flash is being erased). */
  stop() {
    this._running = false;
    if (this._timer !== null) clearTimeout(this._timer);
    this._timer = null;
  }
}

export async function startClock(opts) {
  return new SimClock(opts).start();
}
