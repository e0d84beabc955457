// The write queue of the offline store: durable entries sent one at a time, in order, each with its receipt, and
// refusals reported to `onWriteError` listeners (see offline.js). Methods of OfflineStore, kept here so each file
// is about one thing.
//
// The queue in IndexedDB is one queue per app and server, shared by the app's tabs (each entry names its account,
// and a tab sends its account's entries). Every tab mirrors it in memory and shows its entries in its views; a
// BroadcastChannel tells the other tabs when it changed (an entry added, acknowledged or refused). It is sent by
// one tab at a time, under a Web Lock that spans the origin's tabs: the holder reads the queue from IndexedDB before
// each entry and sends the oldest, so entries queued by a tab that has since been closed go too, and a write queued
// before another is never sent after it, whichever tab queued either.

import { isTokenRejection, isTransient, KuraError } from './errors.js';
import { logsErrors } from './credentials.js';
import { withLock } from './session.js';
import { applyWrite, autoId, nowText } from './values.js';

/** Mixed into OfflineStore.prototype by offline.js. */
export const writeQueue = {
  /** Listeners of queued-write changes: `observer(paths)`. */
  observe(observer) {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  },

  _notify(paths) {
    for (const observer of this.observers) observer(paths);
  },

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
    this._addEntry(entry);
    this._notify(new Set(writes.map((w) => w.path)));
    this._tell({ type: 'queue' });
    const done = new Promise((resolve, reject) => {
      if (this.offline) resolve();
      else this.waiters.set(entry.seq, { resolve, reject });
    });
    this.flush();
    return done;
  },

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
  },

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
  },

  /** The server answered something: if the queue was waiting for it, send it now. */
  serverReached() {
    if (!this.offline) return;
    this.offline = false;
    this.failures = 0;
    clearTimeout(this.retryTimer);
    this.flush();
  },

  async _drain() {
    await this.ready;
    try {
      await withLock(`${this.name}:queue`, async () => {
        while (await this._sendNext());
      });
    } catch (error) {
      // IndexedDB failed under us: try again later rather than lose the entry.
      this._goOffline();
    }
  },

  async _sendNext() {
    // Under the queue lock: what the other tabs queued (or sent) meanwhile is in IndexedDB.
    await this._reloadQueue();
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
      if (isContention(error)) {
        // Not applied, and worth sending again: it stays first in the queue and in local views (Firestore never
        // drops a write for ABORTED). Its caller, if still waiting, goes on waiting.
        this._retryLater();
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
  },

  _goOffline() {
    this.offline = true;
    this._releaseWaiters();
    this.failures += 1;
    // 0.25 s doubling to 30 s, jittered; sooner when a read or the listener stream gets through.
    const ceiling = Math.min(30000, 250 * 2 ** Math.min(this.failures - 1, 10));
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.flush(), ceiling / 2 + Math.random() * ceiling / 2);
  },

  /** Sends the queue again after a backoff that grows with each contention in a row (the server is reachable). */
  _retryLater() {
    this.contentions = (this.contentions ?? 0) + 1;
    const ceiling = Math.min(5000, 50 * 2 ** Math.min(this.contentions - 1, 10));
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.flush(), ceiling / 2 + Math.random() * ceiling / 2);
  },

  _releaseWaiters() {
    for (const waiter of this.waiters.values()) waiter.resolve();
    this.waiters.clear();
  },

  async _remove(entry) {
    this._dropEntry(entry);
    await this._write(['queue', 'receipts'], (tx) => {
      tx?.objectStore('queue').delete(entry.seq);
      if (entry.receipt) tx?.objectStore('receipts').put({ path: entry.receipt, uid: entry.uid });
    });
    if (entry.receipt) this.staleReceipts.set(entry.receipt, entry.uid);
  },

  async _acknowledge(entry, result, offset) {
    this.contentions = 0;
    await this._remove(entry);
    this._tell({ type: 'acknowledged', entry: plainEntry(entry), result, offset });
    this._acknowledged(entry, result, offset);
  },

  /** The local effects of an acknowledged entry (sent by this tab or another). */
  _acknowledged(entry, result, offset) {
    this._dropEntry(entry);
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
  },

  async _reject(entry, error) {
    await this._remove(entry);
    const { code, message, serverCode, status } = error;
    this._tell({ type: 'refused', entry: plainEntry(entry), error: { code, message, serverCode, status } });
    this._refused(entry, error, true);
  },

  /**
   * The local effects of a refused entry: its writes leave the views, and the refusal goes to the call's promise
   * when it still waits in this tab, else (in the tab that met it, `report`) to `onWriteError`.
   */
  _refused(entry, error, report) {
    this._dropEntry(entry);
    // The writes are gone from local views; what the cache holds for their paths may be stale, so forget it.
    for (const write of entry.writes) this.forget(write.path);
    const waiter = this.waiters.get(entry.seq);
    this.waiters.delete(entry.seq);
    this._notify(new Set(entry.writes.map((w) => w.path)));
    if (waiter) {
      waiter.reject(error);
      return;
    }
    if (!report) return;
    const event = { error, writes: entry.writes.map(({ localTime, ...w }) => w) };
    if (!this.errorObservers.size && logsErrors()) console.error('a queued write was refused by the server', error);
    for (const observer of this.errorObservers) observer(event);
  },

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
  },

  // Sharing the queue with the app's other tabs

  _listenToTabs() {
    if (!this.idb || typeof BroadcastChannel !== 'function') return;
    this.channel = new BroadcastChannel(`${this.name}:queue`);
    this.channel.onmessage = (event) => this._fromTab(event.data ?? {});
  },

  _tell(message) {
    try {
      this.channel?.postMessage(message);
    } catch {
      // A closed channel (the store is closing): nothing to tell.
    }
  },

  /** Another tab changed the shared queue: show it, and send what is now ours to send. */
  async _fromTab(message) {
    if (message.type === 'acknowledged') this._acknowledged(message.entry, message.result, message.offset);
    if (message.type === 'refused') {
      const { code, message: text, serverCode, status } = message.error ?? {};
      this._refused(message.entry, new KuraError(code ?? 'unknown', text ?? 'refused', { serverCode, status }), false);
    }
    try {
      if (await this._reloadQueue()) this.flush();
    } catch {
      // IndexedDB failed: the next drain reads the queue again.
    }
  },

  // Every change of the in-memory queue moves `queueVersion`, so that a read of IndexedDB that began before it (and
  // may not show it) is not taken as the queue's state.

  _addEntry(entry) {
    this.queueVersion = (this.queueVersion ?? 0) + 1;
    if (this.queue.some((e) => e.seq === entry.seq)) return;
    this.queue.push(entry);
    this.queue.sort((a, b) => a.seq - b.seq);
  },

  _dropEntry(entry) {
    this.queueVersion = (this.queueVersion ?? 0) + 1;
    this.queue = this.queue.filter((e) => e.seq !== entry.seq);
  },

  /** Reads the queue from IndexedDB; notifies the paths of entries that came or went; whether ours came. */
  async _reloadQueue() {
    if (!this.idb) return false;
    let entries;
    let version;
    do {
      version = this.queueVersion;
      entries = await new Promise((resolve, reject) => {
        const request = this.idb.transaction(['queue'], 'readonly').objectStore('queue').getAll();
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
    } while (version !== this.queueVersion);
    const known = new Map(this.queue.map((e) => [e.seq, e]));
    const present = new Set(entries.map((e) => e.seq));
    const paths = new Set();
    let added = false;
    for (const entry of entries) {
      if (known.has(entry.seq)) continue;
      added ||= entry.uid === this.uid;
      for (const write of entry.writes) paths.add(write.path);
    }
    for (const entry of this.queue) {
      if (!present.has(entry.seq)) for (const write of entry.writes) paths.add(write.path);
    }
    this.queue = entries.map((e) => known.get(e.seq) ?? e);
    if (paths.size) this._notify(paths);
    return added;
  },
};

/**
 * Answers that say the write was not applied *this time* (contention, a passing limit): retried with backoff, never
 * dropped, as KuraClient does. Only permanent refusals (rules, a missing document…) leave the queue.
 */
function isContention(error) {
  return error instanceof KuraError && (error.code === 'aborted' || error.code === 'resource-exhausted');
}

/** An entry as another tab gets it (structured-cloneable, without this tab's bookkeeping). */
function plainEntry({ seq, uid, writes, receipt, queuedAt }) {
  return { seq, uid, writes, receipt, queuedAt };
}
