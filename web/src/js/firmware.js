// The firmware's own Python in the page, for its checks (not a clock): MicroPython's
// WebAssembly port with the firmware package (firmware.json) and py/pagetools.py in its
// file system. The pages ask it to check a time control with the clock's timecontrol.parse
// and a game log with the clock's logline.verify: no rule of the clock is copied in
// JavaScript. Loaded once, when first asked.
//
//     const fw = await firmware();
//     fw.checkTimeControl('{"type":"byoyomi","main":600,"periods":3,"period":30}')
//       -> {ok: true, time_control: {...}, text: "byo 10m+3x30s"} or {error: "period: ..."}

let shared = null;
let loading = null;
let sink = (line) => console.log("[firmware]", line);

/** The page's one MicroPython (two instances in one page trip over each other): the
 * firmware package under /lib, py/pagetools.py beside it. The simulator runs its clock
 * on it (sim/simclock.js); `log` takes what the firmware prints. */
export function micropython(base = document.baseURI, log = null) {
  if (log) sink = log;
  if (!shared) shared = loadShared(new URL(base, document.baseURI).href);
  return shared;
}

async function loadShared(base) {
  const [{ loadMicroPython }, fw, tools] = await Promise.all([
    import(new URL("vendor/micropython/micropython.js", base).href),
    fetch(new URL("firmware.json", base)).then((r) => r.json()),
    fetch(new URL("py/pagetools.py", base)).then((r) => r.text()),
  ]);
  const mp = await loadMicroPython({
    url: new URL("vendor/micropython/micropython.wasm", base).href,
    stdout: (l) => sink(l),
    stderr: (l) => sink(l),
  });
  const put = (path, text) => {
    mp.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    mp.FS.writeFile(path, text);
  };
  for (const [rel, src] of Object.entries(fw.files)) put(`/lib/${rel}`, src);
  put("/lib/pagetools.py", tools);
  return { mp, version: fw.version };
}

async function load(base) {
  const { mp, version } = await micropython(base);
  const py = mp.pyimport("pagetools");
  const hex = (bytes) => Array.from(bytes, (b) => (b < 16 ? "0" : "") + b.toString(16)).join("");
  return {
    version,
    checkTimeControl: (text) => JSON.parse(py.check_time_control(text)),
    describe: (tc) => py.describe(JSON.stringify(tc)),
    verifyLog: (bytes) => JSON.parse(py.verify_log(hex(bytes))),
  };
}

export function firmware(base = document.baseURI) {
  if (!loading) loading = load(base);
  return loading;
}
