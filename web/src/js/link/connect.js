// The Connect panel every clock page shares (configurator, logs): three ways to a clock,
// each behind its check, and plain words for what is missing when one cannot work.
//
//     connectPanel({ onConnect: (link, how) => ..., onDisconnect: (why) => ... })
//
// The page's HTML has #connect-serial, #connect-bridge, #connect-sim, #disconnect,
// #connect-notes and #conn-status.

import {
  ClockLink,
  bridgeInfo,
  serialTransport,
  simTransport,
  webSerialSupport,
  webSocketTransport,
} from "./clocklink.js";

const $ = (id) => document.getElementById(id);

async function simFlashFree() {
  // The simulated clock's flash is this browser's (IndexedDB): one page at a time runs it.
  if (!navigator.locks) return true;
  return new Promise((resolve) => {
    navigator.locks.request("goclock-sim-flash", { ifAvailable: true }, (lock) => {
      resolve(!!lock);
      return lock ? new Promise(() => {}) : undefined;
    });
  });
}

export function connectPanel({ onConnect, onDisconnect, onLog }) {
  const status = $("conn-status");
  const notes = $("connect-notes");
  const buttons = ["connect-serial", "connect-bridge", "connect-sim"].map($);
  let link = null;
  let sim = null;

  const say = (text, bad = false) => {
    status.textContent = text;
    status.classList.toggle("error", bad);
  };
  const note = (id, text) => {
    let li = document.getElementById(id);
    if (!li) {
      li = document.createElement("li");
      li.id = id;
      notes.append(li);
    }
    li.textContent = text;
  };

  const serial = webSerialSupport();
  if (!serial.ok) {
    note("note-serial", serial.why);
    $("connect-serial").disabled = true;
  }
  let bridge = null;
  const bridgeReady = bridgeInfo().then((info) => {
    bridge = info;
    if (!info.url) {
      note("note-bridge", info.reason);
      $("connect-bridge").disabled = true;
    }
    if (!serial.ok && !info.url) {
      note(
        "note-none",
        "No real clock can be reached from here: " +
          "the simulated clock in this page still works, with the same protocol.",
      );
    }
  });

  async function use(how, makeTransport) {
    for (const b of buttons) b.disabled = true;
    say(`Connecting (${how})…`);
    try {
      const t = await makeTransport();
      link = new ClockLink(t);
      link.onlog = onLog;
      link.onclose = (why) => {
        say("Disconnected: " + (why || "the line closed"), true);
        finish(why);
      };
      if (how === "goclock web" && bridge.needs_login) {
        const password = prompt("The bridge's password:");
        const r = await link.request("bridge.login", { password: password || "" });
        if (!r.ok) throw new Error(r.error || "login refused");
      }
      const info = await link.open();
      say(`Connected (${how}): firmware ${info.version} on ${info.board}.`);
      $("disconnect").hidden = false;
      onConnect(link, how);
    } catch (e) {
      say(`Could not connect (${how}): ${e.message}`, true);
      if (link) link.close();
      link = null;
      restore();
    }
  }

  function restore() {
    $("connect-serial").disabled = !serial.ok;
    $("connect-bridge").disabled = !(bridge && bridge.url);
    $("connect-sim").disabled = false;
  }

  function finish(why) {
    link = null;
    $("disconnect").hidden = true;
    restore();
    onDisconnect(why);
  }

  $("connect-serial").addEventListener("click", () =>
    use("USB", async () => {
      let port;
      try {
        port = await navigator.serial.requestPort();
      } catch (e) {
        throw new Error("no port chosen (" + e.message + ")");
      }
      return serialTransport(port);
    }),
  );
  $("connect-bridge").addEventListener("click", async () => {
    await bridgeReady;
    use("goclock web", () => webSocketTransport(bridge.url));
  });
  $("connect-sim").addEventListener("click", () =>
    use("simulated", async () => {
      if (!sim) {
        if (!(await simFlashFree())) {
          throw new Error("the simulator is open in another tab of this browser: use that tab, or close it");
        }
        const { SimClock } = await import("../sim/simclock.js");
        sim = new SimClock({ base: "./", log: (l) => console.log("[firmware]", l) });
        window.goclockSim = sim;
        await sim.start();
      }
      return simTransport(sim);
    }),
  );
  $("disconnect").addEventListener("click", () => {
    if (!link) return;
    const l = link;
    l.onclose = null;
    l.close();
    say("Not connected.");
    finish("disconnected");
  });
  return { bridgeReady, get link() { return link; } };
}
