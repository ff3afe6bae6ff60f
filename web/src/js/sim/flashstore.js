// The simulated clock's flash, kept in IndexedDB: one record per file of its flash
// (/flash/config.json, /flash/logs/<chunk>...), keyed by path. After each loop pass the
// clock hands over the files that pass wrote or removed; they are saved in ONE
// transaction, so a reload (the page's power cut) finds the flash as some pass left it.
// Saves are chained: `flushed()` resolves once everything handed over so far is stored.

const DB = "goclock-sim";
const STORE = "flash";

function request(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

export class FlashStore {
  constructor(name = DB) {
    this.name = name;
    this.db = null;
    this._tail = Promise.resolve();
    this.saves = 0;
    this.error = null;
  }

  async open() {
    const r = indexedDB.open(this.name, 1);
    r.onupgradeneeded = () => r.result.createObjectStore(STORE);
    this.db = await request(r);
    return this;
  }

  /** Every stored file: a Map of path -> Uint8Array. */
  async load() {
    const tx = this.db.transaction(STORE, "readonly");
    const store = tx.objectStore(STORE);
    const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
    const files = new Map();
    keys.forEach((k, i) => files.set(k, new Uint8Array(values[i])));
    return files;
  }

  /** Store `entries` ([path, bytes or null for removed]) in one transaction. */
  save(entries) {
    if (!entries.length) return this._tail;
    const run = () =>
      new Promise((resolve) => {
        const tx = this.db.transaction(STORE, "readwrite");
        const store = tx.objectStore(STORE);
        for (const [path, bytes] of entries) {
          if (bytes) store.put(bytes, path);
          else store.delete(path);
        }
        tx.oncomplete = () => {
          this.saves += 1;
          resolve();
        };
        tx.onerror = tx.onabort = () => {
          this.error = String(tx.error);
          resolve(); // the clock runs on; the page shows the error
        };
      });
    this._tail = this._tail.then(run);
    return this._tail;
  }

  flushed() {
    return this._tail;
  }

  /** Erase the whole flash (a new clock). */
  async clear() {
    await this._tail;
    const tx = this.db.transaction(STORE, "readwrite");
    tx.objectStore(STORE).clear();
    await new Promise((resolve) => (tx.oncomplete = resolve));
  }
}
