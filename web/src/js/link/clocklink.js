// One line to a clock, whatever carries it: the protocol of docs/protocol.md (JSON Lines)
// over Web Serial, over the bridge's WebSocket (`goclock web`), or over the in-page
// simulator's virtual serial line. The pages use only `ClockLink`:
//
//     const link = new ClockLink(transport);
//     await link.open();                       // the bare newline, then `info`
//     const reply = await link.request("status");   // the reply object (ok true or false)
//     link.onevent = (ev) => ...;               // event lines ({"event": ...})
//
// A transport has `send(text)`, `close()`, and calls `onlines(lines)` with whole lines as
// they come and `onclose(reason)` once when the line is gone.

// The protocol version this page speaks: firmware/goclockfw/protocol/commands.py
// PROTOCOL_VERSION (tests/test_web_protocol_version.py keeps the two equal).
export const PROTOCOL = 3;
const REPLY_MS = 5000; // the host tool's reply timeout is 3 s; a bridge adds a little

export class ClockLink {
  constructor(transport) {
    this.transport = transport;
    this.onevent = null;
    this.onclose = null;
    this.onlog = null; // (direction, line): the page's log console
    this.info = null;
    this._waiting = new Map();
    // Ids from a random start (docs/protocol.md, "Opening a connection"): a late answer
    // to an earlier program's request is not taken for ours.
    this._next = 1 + Math.floor(Math.random() * 1e6);
    this._answered = false;
    transport.onlines = (lines) => lines.forEach((l) => this._line(l));
    transport.onclose = (reason) => {
      for (const [, w] of this._waiting) w.reject(new Error(reason || "the line closed"));
      this._waiting.clear();
      if (this.onclose) this.onclose(reason);
    };
  }

  async open() {
    this.transport.send("\n");
    const info = await this.request("info");
    if (!info.ok) throw new Error("the clock refused info: " + info.error);
    if (info.protocol !== PROTOCOL) {
      throw new Error(
        `the clock speaks protocol ${info.protocol}, this page protocol ${PROTOCOL}: ` +
          (info.protocol < PROTOCOL ? "update the clock's firmware" : "update this page"),
      );
    }
    this.info = info;
    return info;
  }

  request(cmd, args = {}) {
    const id = this._next++;
    const line = JSON.stringify({ id, cmd, ...args });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this._waiting.delete(id);
        reject(new Error(`no reply to ${cmd} within ${REPLY_MS / 1000} s`));
      }, REPLY_MS);
      this._waiting.set(id, {
        resolve: (r) => (clearTimeout(timer), resolve(r)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      if (this.onlog) this.onlog("out", line);
      this.transport.send(line + "\n");
    });
  }

  _line(text) {
    if (!text.trim()) return;
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      if (this.onlog) this.onlog("bad", text);
      return;
    }
    if (this.onlog && !(msg.event === "status")) this.onlog("in", text);
    if (msg && "event" in msg) {
      if (this.onevent) this.onevent(msg);
      return;
    }
    const w = this._waiting.get(msg.id);
    if (!w) return; // an answer to a request not ours (a dead host's), or null before ours
    this._answered = true;
    this._waiting.delete(msg.id);
    w.resolve(msg);
  }

  close() {
    this.transport.close();
  }
}

/** Bytes into whole lines (UTF-8), for the byte-stream transports. */
export class LineSplitter {
  constructor(emit) {
    this.emit = emit;
    this.dec = new TextDecoder();
    this.part = "";
  }
  push(bytes) {
    this.part += this.dec.decode(bytes, { stream: true });
    const lines = this.part.split("\n");
    this.part = lines.pop();
    if (lines.length) this.emit(lines);
  }
}

/** The bridge's WebSocket: a frame per line each way (docs/bridge.md). */
export function webSocketTransport(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const t = { send: (text) => text.trim() && ws.send(text), close: () => ws.close(), onlines: null, onclose: null };
    let opened = false;
    ws.onopen = () => {
      opened = true;
      resolve(t);
    };
    ws.onmessage = (e) => t.onlines && t.onlines(String(e.data).split("\n"));
    ws.onclose = (e) => {
      if (!opened) reject(new Error(`the bridge refused the connection (code ${e.code})`));
      else if (t.onclose) t.onclose(e.reason || "the bridge closed the connection");
    };
  });
}

/** A Web Serial port (navigator.serial), already chosen by the user. */
export async function serialTransport(port) {
  await port.open({ baudRate: 115200 });
  const enc = new TextEncoder();
  const writer = port.writable.getWriter();
  const reader = port.readable.getReader();
  const t = { onlines: null, onclose: null };
  const split = new LineSplitter((lines) => t.onlines && t.onlines(lines));
  let closed = false;
  t.send = (text) => writer.write(enc.encode(text));
  t.close = async () => {
    closed = true;
    try {
      await reader.cancel();
      reader.releaseLock();
      writer.releaseLock();
      await port.close();
    } catch {
      /* already gone */
    }
  };
  (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        split.push(value);
      }
    } catch (e) {
      if (!closed && t.onclose) t.onclose("the serial line dropped: " + e.message);
      return;
    }
    if (!closed && t.onclose) t.onclose("the serial line closed");
  })();
  return t;
}

/** The in-page simulator's virtual serial line (sim/serial.js). */
export function simTransport(clock) {
  const t = { onlines: null, onclose: null };
  const split = new LineSplitter((lines) => t.onlines && t.onlines(lines));
  clock.serial.onread = (bytes) => split.push(bytes);
  t.send = (text) => clock.serial.write(text);
  t.close = () => {
    clock.serial.onread = null;
  };
  return t;
}

/** What this browser offers for a direct USB connection, or why it cannot. */
export function webSerialSupport() {
  if (!globalThis.isSecureContext) {
    return {
      ok: false,
      why:
        "This page is not in a secure context: Web Serial needs HTTPS or http://localhost " +
        "(or http://127.0.0.1, as goclock web serves it).",
    };
  }
  if (!("serial" in navigator)) {
    return {
      ok: false,
      why:
        "This browser has no Web Serial: use Chrome, Edge or another Chromium browser, or " +
        "Firefox 151 or later (Safari has none). Or run `goclock web` and connect through it.",
    };
  }
  return { ok: true };
}

/** Where `goclock web` says its bridge is (bridge.json beside the pages), or why not. */
export async function bridgeInfo(base = document.baseURI) {
  let r;
  try {
    r = await fetch(new URL("bridge.json", base), { cache: "no-store" });
  } catch (e) {
    return { url: null, reason: "cannot ask the server for its bridge: " + e.message };
  }
  if (!r.ok) {
    return {
      url: null,
      reason:
        "These pages were not served by `goclock web` (no bridge.json here): run " +
        "`goclock web` and open the address it prints.",
    };
  }
  return r.json();
}
