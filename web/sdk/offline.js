// The offline store (`persistence: 'indexeddb'`): a cache of documents and a durable queue of writes in
// IndexedDB, with the same semantics as KuraClient's offline mode (docs/swift-sdk.md, docs/web-sdk.md):
// reads fall back to the cache when the server cannot be reached; writes are queued, shown at once, and sent one
// queue entry at a time, in order; each entry carries a receipt document created in the same commit, so a repeat
// of an attempt whose answer was lost is recognised (ALREADY_EXISTS) instead of applied twice; a refusal on replay
// is reported to `onWriteError` listeners and dropped, never silently.

import { isTokenRejection, isTransient, KuraError } from './errors.js';
import { inSource, runQuery } from './query.js';
import { applyWrite, autoId, nowText } from './values.js';

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
    this.ready = this._open(`kura:${db.app.options.url}:${db.app.name}`).then(() => {
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
      if (!confirmed) out.push({ ...entry.write, localTime: entry.time });
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

  /** `base` (undefined: unknown) with the writes to `path` applied; and whether there were any. */
  overlay(path, base, writes) {
    let document = base;
    let touched = false;
    for (const write of writes) {
      if (write.path !== path) continue;
      touched = true;
      // An update or a merge onto an unknown document: the result cannot be known.
      if (document === undefined && (write.op === 'update' || (write.op === 'set' && write.merge))) continue;
      document = applyWrite(write, document ?? null, write.localTime ?? nowText());
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

  // The queue

  /** Listeners of queued-write changes: `observer(paths)`. */
  observe(observer) {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  _notify(paths) {
    for (const observer of this.observers) observer(paths);
  }

  /**
   * Queues `writes` as one atomic entry; resolves when the server acknowledged it or when the server is known to
   * be unreachable (the entry waits in the queue). Rejects with the server's refusal.
   */
  async submit(writes) {
    await this.ready;
    const hasCreate = writes.some((w) => w.op === 'create');
    const receipt = hasCreate || !this.uid || !this.receiptCollection
      ? null : `${this.receiptCollection.replace('{uid}', this.uid)}/${autoId()}`;
    const entry = { uid: this.uid, writes, receipt, queuedAt: nowText() };
    entry.seq = await this._write(['queue'], (tx) => {
      if (!tx) return (this._memorySeq = (this._memorySeq ?? 0) + 1);
      const request = tx.objectStore('queue').add(entry);
      return new Promise((resolve) => (request.onsuccess = () => resolve(request.result)));
    });
    this.queue.push(entry);
    this._notify(new Set(writes.map((w) => w.path)));
    const done = new Promise((resolve, reject) => {
      if (this.offline) resolve();
      else this.waiters.set(entry.seq, { resolve, reject });
    });
    this.flush();
    return done;
  }

  /** Resolves when every queued write of the current account has been acknowledged (or refused). */
  async waitForPendingWrites() {
    await this.ready;
    while (this.pendingCount > 0) {
      await new Promise((resolve) => {
        const stop = this.observe(() => {
          stop();
          resolve();
        });
      });
    }
  }

  /** Starts sending the queue unless that is under way. */
  flush() {
    if (this.flushing) {
      this.flushAgain = true;
      return;
    }
    this.flushing = this._drain().finally(() => {
      this.flushing = null;
      if (this.flushAgain) {
        this.flushAgain = false;
        this.flush();
      }
    });
  }

  /** The server answered something: if the queue was waiting for it, send it now. */
  serverReached() {
    if (!this.offline) return;
    this.offline = false;
    this.failures = 0;
    clearTimeout(this.retryTimer);
    this.flush();
  }

  async _drain() {
    await this.ready;
    try {
      while (await this._sendNext());
    } catch (error) {
      // IndexedDB failed under us: try again later rather than lose the entry.
      this._goOffline();
    }
  }

  async _sendNext() {
    const entry = this.queue.find((e) => e.uid === this.uid);
    if (!entry) {
      await this._deleteStaleReceipts();
      return false;
    }
    entry.attempts = (entry.attempts ?? 0) + 1;
    await this._write(['queue'], (tx) => tx?.objectStore('queue').put(entry)).catch(() => {});
    const writes = entry.receipt ? [{ op: 'create', path: entry.receipt, data: {} }, ...entry.writes] : entry.writes;
    try {
      const { body } = await this.db._call('POST', '/api/commit', { body: { writes } });
      await this._acknowledge(entry, body, entry.receipt ? 1 : 0);
      return true;
    } catch (error) {
      if (isTransient(error)) {
        this._goOffline();
        return false;
      }
      if (error.serverCode === 'ALREADY_EXISTS' && entry.attempts > 1) {
        // An earlier attempt whose answer was lost had been applied: its receipt (or new document) exists.
        await this._acknowledge(entry, null, 0);
        return true;
      }
      if (isTokenRejection(error) || error.code === 'unauthenticated') {
        // The account's session is over; its writes wait until it signs in again.
        this._releaseWaiters();
        return false;
      }
      await this._reject(entry, error);
      return true;
    }
  }

  _goOffline() {
    this.offline = true;
    this._releaseWaiters();
    this.failures += 1;
    // 0.25 s doubling to 30 s, jittered; sooner when a read or the listener stream gets through.
    const ceiling = Math.min(30000, 250 * 2 ** Math.min(this.failures - 1, 10));
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.flush(), ceiling / 2 + Math.random() * ceiling / 2);
  }

  _releaseWaiters() {
    for (const waiter of this.waiters.values()) waiter.resolve();
    this.waiters.clear();
  }

  async _remove(entry) {
    this.queue = this.queue.filter((e) => e !== entry);
    await this._write(['queue', 'receipts'], (tx) => {
      tx?.objectStore('queue').delete(entry.seq);
      if (entry.receipt) tx?.objectStore('receipts').put({ path: entry.receipt, uid: entry.uid });
    });
    if (entry.receipt) this.staleReceipts.set(entry.receipt, entry.uid);
  }

  async _acknowledge(entry, result, offset) {
    await this._remove(entry);
    this.offline = false;
    this.failures = 0;
    entry.writes.forEach((write, index) => {
      const outcome = result?.writeResults?.[index + offset];
      const time = result?.commitTime ?? nowText();
      const before = this.cached(write.path);
      const after = before === undefined && (write.op === 'update' || write.merge) ? undefined : applyWrite(write, before ?? null, time);
      if (after !== undefined) this.store(write.path, after && outcome ? { ...after, version: outcome.version, updateTime: outcome.updateTime ?? time } : after);
      else this.forget(write.path);
      if (outcome) this.unconfirmed.set(write.path, { write, version: outcome.version, time, at: Date.now() });
    });
    this.waiters.get(entry.seq)?.resolve();
    this.waiters.delete(entry.seq);
    this._notify(new Set(entry.writes.map((w) => w.path)));
  }

  async _reject(entry, error) {
    await this._remove(entry);
    // The writes are gone from local views; what the cache holds for their paths may be stale, so forget it.
    for (const write of entry.writes) this.forget(write.path);
    const waiter = this.waiters.get(entry.seq);
    this.waiters.delete(entry.seq);
    this._notify(new Set(entry.writes.map((w) => w.path)));
    if (waiter) {
      waiter.reject(error);
      return;
    }
    const event = { error, writes: entry.writes.map(({ localTime, ...w }) => w) };
    if (!this.errorObservers.size) console.error('a queued write was refused by the server', error);
    for (const observer of this.errorObservers) observer(event);
  }

  async _deleteStaleReceipts() {
    for (const [path, uid] of [...this.staleReceipts]) {
      if (uid !== this.uid) continue;
      try {
        await this.db._call('POST', '/api/commit', { body: { writes: [{ op: 'delete', path }] } });
      } catch (error) {
        if (isTransient(error)) return;
      }
      this.staleReceipts.delete(path);
      await this._write(['receipts'], (tx) => tx?.objectStore('receipts').delete(path)).catch(() => {});
    }
  }
}

/** A KuraError for a read that neither the server nor the cache can answer. */
export function cacheMiss(path) {
  return new KuraError('unavailable', `the server cannot be reached and the cache does not hold ${path}`, {
    serverCode: 'UNAVAILABLE', network: true,
  });
}
