// The simulator page: the firmware's clock (sim/simclock.js) behind on-screen buttons and
// the keys of `make sim`. The clock is `window.goclockSim` (its `serial` is the virtual
// line; tests read `said`, `speaker.played` and `view` there).

import { SimClock } from "./sim/simclock.js";

const $ = (id) => document.getElementById(id);
const status = $("status");
const TAP_MS = 80; // as long as a key holds its button (desktop/keys.py)
const KEYS = { a: "tap:left", l: "tap:right", " ": "tap:arbiter", h: "toggle:arbiter" };

function setStatus(text, error = false) {
  status.textContent = text;
  status.classList.toggle("error", error);
}

function clockText(tick) {
  const s = Math.floor(tick / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function viewText(v) {
  const turn = v.state === "running" ? `, ${v.turn} to move` : "";
  const note = v.note ? `. ${v.note}` : "";
  return `Black ${v.black} ${v.black_sub}; White ${v.white} ${v.white_sub}${turn}${note}`;
}

async function exclusive() {
  // One page at a time on this browser's simulated flash: two clocks would write it at once.
  if (!navigator.locks) return true;
  return new Promise((resolve) => {
    navigator.locks.request("goclock-sim-flash", { ifAvailable: true }, (lock) => {
      resolve(!!lock);
      return lock ? new Promise(() => {}) : undefined; // held while the page lives
    });
  });
}

async function main() {
  if (!(await exclusive())) {
    setStatus("The simulator is already open in another tab of this browser: close it, then reload.", true);
    return;
  }
  const clock = new SimClock({ base: "./", canvas: $("oled"), log: (line) => console.log("[firmware]", line) });
  window.goclockSim = clock;
  const calls = $("calls");
  clock.on((o) => {
    if ("say" in o) {
      const li = document.createElement("li");
      const t = document.createElement("time");
      t.textContent = o.t != null ? clockText(o.t) : "";
      li.append(t, document.createTextNode(o.say));
      calls.prepend(li);
      while (calls.children.length > 60) calls.lastChild.remove();
    } else if ("view" in o) {
      $("view").textContent = viewText(o.view);
    } else if ("led" in o) {
      $("led").classList.toggle("on", !!o.led);
    } else if ("buttons" in o) {
      const left = o.buttons.left;
      const right = left === "black" ? "white" : "black";
      for (const [id, side] of [["left", left], ["right", right]]) {
        const b = $(id);
        b.className = `player ${side}`;
        b.querySelector(".who").textContent = side === "black" ? "Black's button" : "White's button";
      }
    } else if ("pass" in o) {
      const held = clock.arbiterHeld;
      $("arbiter").setAttribute("aria-pressed", String(held));
    } else if ("stopped" in o) {
      setStatus("The firmware stopped: " + o.stopped, true);
    }
  });

  const unlock = () => {
    if (clock.speaker.unlock()) $("sound-note").textContent = clock.speaker.ready ? "Sound on." : "";
  };
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.closest && e.target.closest("input, textarea, select")) return;
    const action = KEYS[e.key.toLowerCase()];
    if (!action) return;
    e.preventDefault(); // Space must not also click the focused button or scroll
    unlock();
    if (!e.repeat) clock.press(action);
  });
  document.addEventListener("keyup", (e) => {
    if (e.key === " " && !(e.target.closest && e.target.closest("input, textarea, select"))) e.preventDefault();
  });
  for (const [id, name] of [["left", "left"], ["right", "right"], ["arbiter", "arbiter"]]) {
    const b = $(id);
    let downAt = 0;
    const up = () => {
      if (!b.classList.contains("down")) return;
      b.classList.remove("down");
      // A touch or a click can be shorter than the firmware's debounce window, which a
      // real button's press never is: the button is let go no sooner than a key's tap.
      const left = TAP_MS - (Date.now() - downAt);
      if (left > 0) setTimeout(() => clock.press("up:" + name), left);
      else clock.press("up:" + name);
    };
    b.addEventListener("pointerdown", (e) => {
      unlock();
      b.setPointerCapture?.(e.pointerId);
      b.classList.add("down");
      downAt = Date.now();
      clock.press("down:" + name);
    });
    b.addEventListener("pointerup", up);
    b.addEventListener("pointercancel", up);
    b.addEventListener("click", (e) => {
      if (e.detail === 0) {
        unlock();
        clock.press("tap:" + name); // Enter on the focused button
      }
    });
  }
  $("mute").addEventListener("change", (e) => (clock.speaker.muted = e.target.checked));
  $("erase").addEventListener("click", async () => {
    if (!confirm("Erase the simulated clock's flash: its config and every game log? The page then reloads.")) return;
    clock.stop();
    await clock.store.clear();
    location.reload();
  });

  try {
    await clock.start();
  } catch (e) {
    setStatus("The firmware could not start: " + e, true);
    throw e;
  }
  setStatus(`Running: firmware ${clock.firmwareVersion}.`);
}

main();
