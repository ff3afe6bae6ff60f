// The simulated SSD1306 128x64 in a canvas: the panel's memory as the firmware sent it
// (browser/oled.py), 8 pages of 128 columns, one bit a pixel, the lowest bit on top.

export const WIDTH = 128;
export const HEIGHT = 64;
const ON = [0xd8, 0xf0, 0xff]; // the panel's pale blue-white
const OFF = [0x05, 0x08, 0x0c];

export class OledCanvas {
  constructor(canvas) {
    this.canvas = canvas;
    canvas.width = WIDTH;
    canvas.height = HEIGHT;
    this.ctx = canvas.getContext("2d");
    this.image = this.ctx.createImageData(WIDTH, HEIGHT);
    this.ram = new Uint8Array(WIDTH * 8);
    this._pending = null;
    this.draw(this.ram);
  }

  /** The panel's memory as hex (from the clock's pass); drawn at the next frame. */
  show(hex) {
    const ram = new Uint8Array(hex.length / 2);
    for (let i = 0; i < ram.length; i++) ram[i] = parseInt(hex.substr(2 * i, 2), 16);
    this.ram = ram;
    if (!this._pending) {
      this._pending = requestAnimationFrame(() => {
        this._pending = null;
        this.draw(this.ram);
      });
    }
  }

  draw(ram) {
    const px = this.image.data;
    for (let page = 0; page < 8; page++) {
      for (let x = 0; x < WIDTH; x++) {
        const byte = ram[page * WIDTH + x];
        for (let bit = 0; bit < 8; bit++) {
          const c = byte & (1 << bit) ? ON : OFF;
          const i = ((page * 8 + bit) * WIDTH + x) * 4;
          px[i] = c[0];
          px[i + 1] = c[1];
          px[i + 2] = c[2];
          px[i + 3] = 255;
        }
      }
    }
    this.ctx.putImageData(this.image, 0, 0);
  }

  /** Is pixel (x, y) lit? (tests read the display through this) */
  lit(x, y) {
    return (this.ram[(y >> 3) * WIDTH + x] >> (y & 7)) & 1;
  }
}
