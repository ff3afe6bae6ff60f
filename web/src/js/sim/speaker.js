// The simulated clock's speaker: clips of the voice pack, decoded here (adpcm.js), played
// through WebAudio; beeps as oscillator tones. The firmware decides what to play and when
// (its announcer, through the board's speaker in desktop/parts.py); this only sounds it.
// Every start is recorded in `played` with the clock's tick, for the page's log and tests.

import { decodeWav } from "./adpcm.js";

export class Speaker {
  constructor() {
    this.ctx = null;
    this.files = new Map(); // VFS path -> bytes of the clips
    this.decoded = new Map(); // VFS path -> AudioBuffer
    this.played = []; // {tick, clip} or {tick, beep}
    this.muted = false;
    this._node = null;
  }

  /** Called from a user gesture: browsers start audio only then. */
  unlock() {
    if (!this.ctx) {
      const AC = globalThis.AudioContext || globalThis.webkitAudioContext;
      if (!AC) return false;
      this.ctx = new AC();
    }
    if (this.ctx.state === "suspended") this.ctx.resume();
    return true;
  }

  get ready() {
    return !!this.ctx && this.ctx.state === "running";
  }

  addFiles(map) {
    for (const [path, bytes] of map) this.files.set(path, bytes);
  }

  _buffer(path) {
    let buf = this.decoded.get(path);
    if (buf) return buf;
    const bytes = this.files.get(path);
    if (!bytes) return null;
    const { rate, samples } = decodeWav(bytes);
    buf = this.ctx.createBuffer(1, Math.max(1, samples.length), rate);
    const ch = buf.getChannelData(0);
    for (let i = 0; i < samples.length; i++) ch[i] = samples[i] / 32768;
    this.decoded.set(path, buf);
    return buf;
  }

  _gain(volume) {
    const g = this.ctx.createGain();
    g.gain.value = this.muted ? 0 : Math.max(0, Math.min(10, volume)) / 10;
    g.connect(this.ctx.destination);
    return g;
  }

  play(tick, clip, volume) {
    this.played.push({ tick, clip });
    this.stop();
    if (!this.ctx) return;
    let buf;
    try {
      buf = this._buffer(clip);
    } catch (e) {
      console.warn("clip", clip, e);
      return;
    }
    if (!buf) return;
    const src = this.ctx.createBufferSource();
    src.buffer = buf;
    src.connect(this._gain(volume));
    src.start();
    this._node = src;
  }

  beep(tick, steps, volume = 5) {
    this.played.push({ tick, beep: steps });
    this.stop();
    if (!this.ctx) return;
    let at = this.ctx.currentTime;
    const gain = this._gain(volume);
    for (const [freq, ms] of steps) {
      if (freq > 0) {
        const osc = this.ctx.createOscillator();
        osc.frequency.value = freq;
        osc.connect(gain);
        osc.start(at);
        osc.stop(at + ms / 1000);
        this._node = osc;
      }
      at += ms / 1000;
    }
  }

  stop() {
    if (this._node) {
      try {
        this._node.stop();
      } catch {
        /* already ended */
      }
      this._node = null;
    }
  }
}
