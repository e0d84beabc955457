// The offline store (`persistence: 'indexeddb'`): a cache of documents and a durable queue of writes in
// IndexedDB, with the same semantics as KuraClient's offline mode (docs/swift-sdk.md, docs/web-sdk.md):
// reads fall back to the cache when the server cannot be reached; writes are queued, shown at once, and sent one
// queue entry at a time, in order; each entry carries a receipt document created in the same commit, so a repeat
// of an attempt whose answer was lost is recognised (ALREADY_EXISTS) instead of applied twice; a refusal on replay
// is reported to `onWriteError` listeners and dropped, never silently.

import { KuraError } from './errors.js';
import { inSource, runQuery } from './query.js';
import { applyWrite, documentValue, nowText } from './values.js';
import { writeQueue } from './write-queue.js';

const STORES = ['documents', 'queue', 'meta', 'receipts'];

/** The cache and write queue of one database. Everything is mirrored in memory; IndexedDB makes it durable. */
export class OfflineStore {
  constructor(db, settings) {
    this.db = db;
    this.receiptCollection = settings.writeReceipts === undefined ? 'users/{uid}/_kura_receipts' : settings.writeReceipts;
    /** path → stored document, or null when known missing. */
    this.documents = new Map();
    /** Entries `{seq, uid, writes, receipt, queuedAt}`, oldest first. */
    this.queue = [];
    /** Moves with every change of `queue` here (see write-queue.js). */
    this.queueVersion = 0;
    this.staleReceipts = new Map();
    /** Acknowledged writes the listener stream has not shown yet: path → {write, version, time, at}. */
    this.unconfirmed = new Map();
    this.waiters = new Map();
    this.observers = new Set();
    this.errorObservers = new Set();
    this.offline = false;
    this.failures = 0;
    this.flushing = null;
    this.flushAgain = false;
    this.retryTimer = null;
    this.persistenceError = null;
    this.uid = db._auth.currentUser?.uid ?? '';
    this.idb = null;
    this.name = `kura:${db.app.options.url}:${db.app.name}`;
    /** Tells the app's other tabs that the shared queue changed (see write-queue.js). */
    this.channel = null;
    this.ready = this._open(this.name).then(() => {
      this._listenToTabs();
      this._accountObserver = (user) => this._accountChanged(user?.uid ?? '');
      db._auth._observers.add(this._accountObserver);
      // The browser says the network is back: try the queue now rather than at the next backoff step.
      this._online = () => this.serverReached();
      globalThis.addEventListener?.('online', this._online);
      this.flush();
    });
  }

  // IndexedDB

  async _open(name) {
    try {
      this.idb = await new Promise((resolve, reject) => {
        const request = indexedDB.open(name, 1);
        request.onupgradeneeded = () => {
          const idb = request.result;
          idb.createObjectStore('documents', { keyPath: 'path' });
          idb.createObjectStore('queue', { keyPath: 'seq', autoIncrement: true });
          idb.createObjectStore('meta', { keyPath: 'key' });
          idb.createObjectStore('receipts', { keyPath: 'path' });
        };
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
        request.onblocked = () => reject(new Error('IndexedDB is blocked by another connection'));
      });
      const [documents, queue, meta, receipts] = await this._read();
      const cacheUid = meta.find((m) => m.key === 'uid')?.value ?? '';
      if (cacheUid === this.uid) for (const row of documents) this.documents.set(row.path, row.document);
      else await this._clearDocuments();
      this.queue = queue;
      for (const row of receipts) this.staleReceipts.set(row.path, row.uid);
    } catch (error) {
      // No IndexedDB (private mode, blocked): the cache and queue live in memory for this page.
      this.persistenceError = error;
      this.idb = null;
    }
  }

  _read() {
    return new Promise((resolve, reject) => {
      const tx = this.idb.transaction(STORES, 'readonly');
      const out = [];
      STORES.forEach((store, index) => {
        const request = tx.objectStore(store).getAll();
        request.onsuccess = () => (out[index] = request.result);
      });
      tx.oncomplete = () => resolve(out);
      tx.onerror = () => reject(tx.error);
    });
  }

  /** Runs `body(tx)` in one read-write transaction; resolves when it is durable. */
  _write(stores, body) {
    if (!this.idb) return Promise.resolve(body(null));
    return new Promise((resolve, reject) => {
      const tx = this.idb.transaction(stores, 'readwrite', { durability: 'strict' });
      let result;
      try {
        result = body(tx);
      } catch (error) {
        tx.abort();
        reject(error);
        return;
      }
      tx.oncomplete = () => resolve(result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
    });
  }

  async _clearDocuments() {
    this.documents.clear();
    this.unconfirmed.clear();
    await this._write(['documents', 'meta'], (tx) => {
      if (!tx) return;
      tx.objectStore('documents').clear();
      tx.objectStore('meta').put({ key: 'uid', value: this.uid });
    });
  }

  async _accountChanged(uid) {
    if (uid === this.uid) return;
    this.uid = uid;
    // The cache belongs to one account; queued writes wait for theirs.
    await this._clearDocuments();
    this.flush();
  }

  async close() {
    this.channel?.close();
    this.db._auth._observers.delete(this._accountObserver);
    clearTimeout(this.retryTimer);
    globalThis.removeEventListener?.('online', this._online);
    this.idb?.close();
  }

  // The cache

  /** undefined: unknown; null: known missing; else the stored document. */
  cached(path) {
    return this.documents.get(path);
  }

  /** Every cached document of the query's source. */
  cachedDocuments(q) {
    return [...this.documents.values()].filter((d) => d && inSource(q, d.path));
  }

  /** Stores what the server said about `path` (null: missing). */
  store(path, document) {
    this.documents.set(path, document);
    this._write(['documents'], (tx) => tx?.objectStore('documents').put({ path, document })).catch(() => {});
  }

  storeAll(documents) {
    for (const document of documents) this.documents.set(document.path, document);
    this._write(['documents'], (tx) => {
      const store = tx?.objectStore('documents');
      for (const document of documents) store?.put({ path: document.path, document });
    }).catch(() => {});
  }

  /** The cache no longer knows `path` (it left a query: deleted, or no longer matching). */
  forget(path) {
    this.documents.delete(path);
    this._write(['documents'], (tx) => tx?.objectStore('documents').delete(path)).catch(() => {});
  }

  // Local views

  /** The current account's queued writes, oldest first, each with `localTime`. */
  pendingWrites() {
    return this.queue.filter((e) => e.uid === this.uid).flatMap((e) => e.writes.map((w) => ({ ...w, localTime: e.queuedAt })));
  }

  get pendingCount() {
    return this.queue.filter((e) => e.uid === this.uid).length;
  }

  /** Acknowledged writes that `serverView` (a listener's documents) does not show yet, for paths `covers`. */
  unconfirmedWrites(covers, serverView) {
    const out = [];
    const now = Date.now();
    for (const [path, entry] of this.unconfirmed) {
      if (now - entry.at > 10000) {
        this.unconfirmed.delete(path);
        continue;
      }
      if (!covers(path)) continue;
      const shown = serverView.find((d) => d.path === path);
      const confirmed = entry.write.op === 'delete' ? !shown : shown && shown.version >= entry.version;
      if (!confirmed) out.push({ ...entry.write, localTime: entry.time, acknowledged: true });
    }
    return out;
  }

  /**
   * The listener stream showed `path` at `version` (null: it left a view): an acknowledged write at or below it
   * needs no overlay any more.
   */
  settle(path, version) {
    const entry = this.unconfirmed.get(path);
    if (entry && (version == null || version >= entry.version)) this.unconfirmed.delete(path);
  }

  /**
   * `base` (undefined: unknown) with the writes to `path` applied; and whether there were any. Server timestamps
   * of queued writes hold the write's local time until the server's arrives; the result's `_pendingTimes` names
   * those fields (field → {time, previous}), for `data({serverTimestamps})`.
   */
  overlay(path, base, writes) {
    let document = base;
    let touched = false;
    const times = new Map(Object.entries(base?._pendingTimes ?? {}));
    for (const write of writes) {
      if (write.path !== path) continue;
      touched = true;
      // An update or a merge onto an unknown document: the result cannot be known.
      if (document === undefined && (write.op === 'update' || (write.op === 'set' && write.merge))) continue;
      const before = document;
      const time = write.localTime ?? nowText();
      document = applyWrite(write, document ?? null, time);
      if (write.acknowledged) continue;
      for (const transform of write.transforms ?? []) {
        if (!transform.serverTimestamp) continue;
        const previous = times.has(transform.field) ? times.get(transform.field).previous
          : before ? documentValue(before, transform.field) : undefined;
        times.set(transform.field, { time, previous: previous ?? null });
      }
    }
    if (document && times.size) {
      // A field written again after its server timestamp no longer waits for it.
      const pending = Object.fromEntries([...times].filter(([field, { time }]) => documentValue(document, field) === time));
      if (Object.keys(pending).length) document = { ...document, _pendingTimes: pending };
    }
    return { document, touched };
  }

  /** The query over `base` documents with `writes` applied (documents not in `base` come from the cache). */
  localResults(q, base, writes) {
    const byPath = new Map(base.map((d) => [d.path, d]));
    for (const write of writes) {
      if (!inSource(q, write.path)) continue;
      const current = byPath.has(write.path) ? byPath.get(write.path) : this.cached(write.path);
      const { document } = this.overlay(write.path, current, [write]);
      if (document) byPath.set(write.path, document);
      else if (document === null) byPath.delete(write.path);
    }
    return runQuery(q, [...byPath.values()]);
  }
}

/** A KuraError for a read that neither the server nor the cache can answer. */
export function cacheMiss(path) {
  return new KuraError('unavailable', `the server cannot be reached and the cache does not hold ${path}`, {
    serverCode: 'UNAVAILABLE', network: true,
  });
}

Object.assign(OfflineStore.prototype, writeQueue);
