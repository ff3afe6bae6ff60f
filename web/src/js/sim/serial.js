// The simulated clock's serial line, seen from the page: an object like a serial port.
//
//     line.onread = (bytes) => ...    // bytes the clock sent (a Uint8Array)
//     line.write(bytes)               // bytes to the clock (Uint8Array or string)
//
// The clock speaks the same protocol on it as on a board's USB line (docs/protocol.md),
// so a page connects to the simulator exactly as to a clock. Bytes written go to the
// clock's next loop pass, which runs at once.

export class VirtualLine {
  constructor(wake) {
    this.onread = null;
    this._rx = []; // bytes written, waiting for the clock's next pass
    this._wake = wake;
    this._enc = new TextEncoder();
  }

  write(data) {
    const bytes = typeof data === "string" ? this._enc.encode(data) : new Uint8Array(data);
    for (const b of bytes) this._rx.push(b);
    this._wake();
    return bytes.length;
  }

  /** Bytes written that the clock has not had yet. */
  get pending() {
    return this._rx.length;
  }

  /** The bytes for the clock's pass, as hex (taken: the clock has them now). */
  take() {
    if (!this._rx.length) return "";
    let hex = "";
    for (const b of this._rx) hex += (b < 16 ? "0" : "") + b.toString(16);
    this._rx = [];
    return hex;
  }

  deliver(hex) {
    const bytes = new Uint8Array(hex.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.substr(2 * i, 2), 16);
    if (this.onread) this.onread(bytes);
  }
}
