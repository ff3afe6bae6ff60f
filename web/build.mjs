// Build the static web app into web/dist (or the folder given): the pages, their scripts,
// MicroPython's WebAssembly port from node_modules, the firmware package as one bundle and
// each voice pack as one bundle. Nothing is fetched from anywhere at run time but these
// files, so any static file server can serve the folder (GitHub Pages, `goclock web`).
//
//     node build.mjs [OUT]
//
// The firmware bundle holds goclockfw's modules as source, the real package the boards run,
// less what only a chip or the PC uses (the hardware layers, the desktop board, the
// scenario runner); the page writes them under /lib/goclockfw in MicroPython's file system.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.dirname(HERE);
const OUT = path.resolve(process.argv[2] || path.join(HERE, "dist"));
const MICROPYTHON = path.join(HERE, "node_modules", "@micropython", "micropython-webassembly-pyscript");

// Modules of goclockfw the page never imports (relative to firmware/goclockfw).
const LEFT_OUT = [
  /^scenario\//,
  /^board\/(rp2board|esp32board|edgetimer|mcu)\.py$/,
  /^desktop\/(board|flash|chipboard|chipcosts|chipmodel)\.py$/,
];

// The pages, in the order of the header's links; each page's <!-- goclock:header ... -->
// becomes this header, its own link marked as the current page.
const PAGES = [
  ["index.html", "Home"],
  ["simulator.html", "Simulator"],
  ["configurator.html", "Configurator"],
  ["logs.html", "Logs"],
  ["hall.html", "Hall"],
];
const HEADER_MARK = /<!-- goclock:header[^>]*-->/;

function header(page) {
  const links = PAGES.map(([file, name]) => {
    const current = file === page ? ' aria-current="page"' : "";
    return `      <a href="${file}"${current}>${name}</a>`;
  });
  return [
    '<a class="skip" href="#main">Skip to the content</a>',
    "  <header class=\"top\">",
    '    <a class="brand" href="index.html">goclock</a>',
    '    <nav aria-label="pages">',
    ...links,
    "    </nav>",
    "  </header>",
  ].join("\n");
}

// The Connect panel of the pages that talk to a clock (js/link/connect.js wires it).
const CONNECT_MARK = /<!-- goclock:connect[^>]*-->/;
const CONNECT = `<h2 id="connect-h">Connect</h2>
      <div class="row">
        <button id="connect-serial" class="plain-btn" type="button">USB (Web Serial)…</button>
        <button id="connect-bridge" class="plain-btn" type="button">Through goclock web</button>
        <button id="connect-sim" class="plain-btn" type="button">Simulated clock in this page</button>
        <button id="disconnect" class="plain-btn" type="button" hidden>Disconnect</button>
      </div>
      <ul id="connect-notes" class="notes"></ul>
      <p id="conn-status" role="status">Not connected.</p>`;

function pagesWithHeader(out) {
  for (const [file] of PAGES) {
    const p = path.join(out, file);
    const html = fs.readFileSync(p, "utf8");
    if (!HEADER_MARK.test(html)) throw new Error(`${file}: no <!-- goclock:header --> mark`);
    fs.writeFileSync(p, html.replace(HEADER_MARK, header(file)).replace(CONNECT_MARK, CONNECT));
  }
}

function copyTree(src, dst) {
  fs.mkdirSync(dst, { recursive: true });
  for (const name of fs.readdirSync(src)) {
    const from = path.join(src, name);
    const to = path.join(dst, name);
    if (fs.statSync(from).isDirectory()) copyTree(from, to);
    else fs.copyFileSync(from, to);
  }
}

function walk(dir, rel = "") {
  const out = [];
  for (const name of fs.readdirSync(dir).sort()) {
    if (name === "__pycache__") continue;
    const p = path.join(dir, name);
    const r = rel ? rel + "/" + name : name;
    if (fs.statSync(p).isDirectory()) out.push(...walk(p, r));
    else out.push(r);
  }
  return out;
}

function firmwareBundle() {
  const root = path.join(REPO, "firmware", "goclockfw");
  const files = {};
  for (const rel of walk(root)) {
    if (!rel.endsWith(".py") || LEFT_OUT.some((re) => re.test(rel))) continue;
    files["goclockfw/" + rel] = fs.readFileSync(path.join(root, rel), "utf8");
  }
  const version = /VERSION\s*=\s*"([^"]+)"/.exec(files["goclockfw/__init__.py"] || "");
  return { version: version ? version[1] : null, files };
}

// A voice pack as one file: "GCPK", the index's length (uint32, little-endian), the index
// (JSON: file name -> [offset, length] in the data after it), the files' bytes.
function packBundle(dir) {
  const names = walk(dir);
  const index = {};
  const parts = [];
  let at = 0;
  for (const name of names) {
    const data = fs.readFileSync(path.join(dir, name));
    index[name] = [at, data.length];
    parts.push(data);
    at += data.length;
  }
  const head = Buffer.from(JSON.stringify(index), "utf8");
  const len = Buffer.alloc(4);
  len.writeUInt32LE(head.length);
  return Buffer.concat([Buffer.from("GCPK"), len, head, ...parts]);
}

function main() {
  if (!fs.existsSync(path.join(MICROPYTHON, "micropython.wasm"))) {
    console.error("build: no MicroPython in node_modules: run `npm ci` in web/ first");
    process.exit(1);
  }
  fs.rmSync(OUT, { recursive: true, force: true });
  copyTree(path.join(HERE, "src"), OUT);
  pagesWithHeader(OUT);
  const vendor = path.join(OUT, "vendor", "micropython");
  fs.mkdirSync(vendor, { recursive: true });
  // micropython.mjs as .js: some static servers give .mjs no JavaScript type, and a
  // browser then refuses to run it as a module.
  for (const [from, to] of [
    ["micropython.mjs", "micropython.js"],
    ["micropython.wasm", "micropython.wasm"],
    ["package.json", "package.json"],
  ]) {
    fs.copyFileSync(path.join(MICROPYTHON, from), path.join(vendor, to));
  }
  // MQTT.js's browser bundle (one ES module) for the hall page, with its licence.
  const mqtt = path.join(HERE, "node_modules", "mqtt");
  fs.mkdirSync(path.join(OUT, "vendor", "mqtt"), { recursive: true });
  fs.copyFileSync(path.join(mqtt, "dist", "mqtt.esm.js"), path.join(OUT, "vendor", "mqtt", "mqtt.js"));
  fs.copyFileSync(path.join(mqtt, "LICENSE.md"), path.join(OUT, "vendor", "mqtt", "LICENSE.md"));
  fs.copyFileSync(path.join(mqtt, "package.json"), path.join(OUT, "vendor", "mqtt", "package.json"));
  fs.copyFileSync(path.join(HERE, "THIRD_PARTY.md"), path.join(OUT, "THIRD_PARTY.md"));
  fs.copyFileSync(path.join(REPO, "LICENSE"), path.join(OUT, "LICENSE"));
  // What a page finds on any static server; `goclock web` answers this path itself, with
  // its bridge's WebSocket and this run's token (host/goclock/web/server.py).
  fs.writeFileSync(
    path.join(OUT, "bridge.json"),
    JSON.stringify({
      url: null,
      reason:
        "These pages were not served by `goclock web`, so no clock is bridged to them: run " +
        "`goclock web` (it prints the address to open), or connect over USB.",
    }),
  );
  const fw = firmwareBundle();
  fs.writeFileSync(path.join(OUT, "firmware.json"), JSON.stringify(fw));
  const sounds = path.join(REPO, "sounds");
  const packs = [];
  fs.mkdirSync(path.join(OUT, "sounds"), { recursive: true });
  for (const name of fs.readdirSync(sounds).sort()) {
    if (!fs.existsSync(path.join(sounds, name, "manifest.json"))) continue;
    fs.writeFileSync(path.join(OUT, "sounds", name + ".pack"), packBundle(path.join(sounds, name)));
    packs.push(name);
  }
  fs.writeFileSync(path.join(OUT, "sounds", "packs.json"), JSON.stringify(packs));
  console.log(
    `build: ${OUT}: ${Object.keys(fw.files).length} firmware modules, voice packs ${packs.join(", ")}`,
  );
}

main();
