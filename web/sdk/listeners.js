// Realtime listeners: every listener of a database shares one Server-Sent Events stream (GET /api/listen, read
// with fetch so the token goes in a header), each a target added with POST /api/listen/{connectionId}
// (docs/realtime.md). When the stream drops (network, server restart, `overflow`, a missing heartbeat) the hub
// reconnects with backoff and re-adds every target with `resumeAfter` = the last event id at which that target was
// current, so listeners go on without missing or repeating a change. When the ID token expires (`auth_revoked`)
// it is refreshed and the stream resumed the same way; a session that cannot be refreshed signs the user out and
// ends the listeners with `unauthenticated`.
//
// Several nodes behind a load balancer (docs/scaling.md): the stream and the POSTs that add its targets must reach
// the same node, so every listen request carries `?affinity=<random key of this hub>`, which the shipped nginx
// configuration hashes on. A POST that still lands on a node that does not hold the stream (404 NOT_FOUND while
// the stream is open: the balancer moved this client) drops the stream; the reopened one re-adds every target
// with its position.

import { KuraError, isTokenRejection, isTransient, networkError, serverError } from './errors.js';
import { encodeQuery } from './query.js';
import { listenerViews } from './listener-views.js';
import { DocumentReference, DocumentSnapshot, QuerySnapshot } from './references.js';
import { readEventStream } from './sse.js';

/** The listener registry and stream of one database. */
export class ListenerHub {
  constructor(db) {
    this.db = db;
    this.auth = db._auth;
    this.offline = db._offline;
    this.targets = new Map();
    this.nextTarget = 0;
    this.running = false;
    this.controller = null;
    this.connectionId = null;
    this.lastEventId = null;
    this.failures = 0;
    this.uid = null;
    /** Sent with every listen request so that a load balancer keeps this hub's stream and POSTs on one node. */
    this.affinity = affinityKey();
    this.wake = null;
    /** What the hub has seen (tests tell a resumed stream from a fresh snapshot by these). */
    this.statistics = { connections: 0, snapshotEvents: 0, changesEvents: 0, resets: 0 };
    this.offline?.observe((paths) => this._localChange(paths));
    this.auth._observers.add((user) => {
      // The signed-in account changed: reopen the stream with the new credentials. What the listeners hold was
      // read as the previous account, so they start over with fresh snapshots rather than resume.
      if ((user?.uid ?? null) === this.uid) return;
      for (const target of this.targets.values()) {
        target.resumePosition = null;
        target.live = false;
      }
      if (this.controller) this._restart();
    });
    globalThis.addEventListener?.('online', () => this.wake?.());
  }

  /** Registers a listener; returns its target id. */
  add(spec, local, deliver, fail) {
    const id = `t${++this.nextTarget}`;
    this.targets.set(id, {
      spec, local, deliver, fail,
      serverView: [], view: [], metadata: null, delivered: false, viewIsServer: true,
      serverRevision: 0, viewRevision: 0, hasFirstEvent: false, live: false, synced: false, resumePosition: null,
      drops: 0,
    });
    if (!this.running) this._run();
    else if (this.connectionId) this._send([id], this.connectionId);
    return id;
  }

  /** Unregisters a listener; the last one closes the stream. */
  remove(id) {
    if (!this.targets.delete(id)) return;
    if (!this.targets.size) {
      this.controller?.abort();
      return;
    }
    const connection = this.connectionId;
    if (connection) {
      this.db._call('POST', this._targetsPath(connection), { body: { remove: [id] } }).catch(() => {});
    }
  }

  close() {
    for (const id of [...this.targets.keys()]) this.remove(id);
  }

  /**
   * Calls `observer()` soon and after each batch of server events has been applied to every listener
   * (Firestore's `onSnapshotsInSync`); returns the unsubscribe.
   */
  onSync(observer) {
    this.syncObservers ??= new Set();
    const wrapped = () => observer();
    this.syncObservers.add(wrapped);
    Promise.resolve().then(() => this.syncObservers.has(wrapped) && wrapped());
    return () => this.syncObservers.delete(wrapped);
  }

  _inSync() {
    if (!this.syncObservers?.size || this.syncPending) return;
    this.syncPending = true;
    queueMicrotask(() => {
      this.syncPending = false;
      for (const observer of [...this.syncObservers]) {
        try {
          observer();
        } catch (error) {
          console.error(error);
        }
      }
    });
  }

  /** Drops the current stream as a network failure would (tests use it). */
  dropConnection() {
    this.controller?.abort();
  }

  _restart() {
    this.restarting = true;
    this.controller?.abort();
  }

  async _run() {
    this.running = true;
    try {
      while (this.targets.size) {
        if (this.db._networkDisabled) {
          // disableNetwork: listeners show the cache until enableNetwork.
          this._showCache();
          await this.db._networkDisabled;
          continue;
        }
        let token;
        try {
          token = await this.auth._idToken();
        } catch (error) {
          if (isTransient(error) || error.code === 'auth/network-request-failed') {
            this._showCache();
            await this._backOff();
            continue;
          }
          this._failAll(error);
          return;
        }
        this.restarting = false;
        const ending = await this._consume(token);
        if (!this.targets.size) return;
        if (this.restarting) continue;
        if (ending.type === 'overflow') continue;
        if (ending.type === 'authRevoked' || (ending.type === 'refused' && isTokenRejection(ending.error))) {
          if (!(await this._refresh(token))) return;
        } else if (ending.type === 'refused' && !isTransient(ending.error)) {
          this._failAll(ending.error);
          return;
        } else {
          this._showCache();
          await this._backOff();
        }
      }
    } finally {
      this.running = false;
      this.controller = null;
      this.connectionId = null;
      // A listener added while the loop was winding down.
      if (this.targets.size) this._run();
    }
  }

  /** After the server refused `token`: whether to go on (a fresh token, or none needed). */
  async _refresh(token) {
    if (!token) return true;
    try {
      if (await this.auth._refresh(token)) return true;
      this._failAll(new KuraError('unauthenticated', 'the session ended (signed out)', { serverCode: 'UNAUTHENTICATED' }));
    } catch (error) {
      if (error.network || isTransient(error) || error.code === 'auth/network-request-failed') {
        await this._backOff();
        return true;
      }
      this._failAll(error);
    }
    return false;
  }

  _backOff() {
    this.failures += 1;
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, backOffDelay(this.failures));
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (this.wake = null));
  }

  /** Opens and reads one stream until it ends; returns how it ended. */
  async _consume(token) {
    const controller = new AbortController();
    this.controller = controller;
    this.uid = this.auth.currentUser?.uid ?? null;
    const headers = { Accept: 'text/event-stream' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (this.lastEventId) headers['Last-Event-ID'] = this.lastEventId;
    let lastActivity = Date.now();
    let watchdog = null;
    let ending = { type: 'dropped' };
    try {
      const response = await fetch(`${this.db.app.options.url}/api/listen?affinity=${this.affinity}`, {
        headers, signal: controller.signal, cache: 'no-store',
      });
      if (!response.ok) {
        const body = await response.json().catch(() => null);
        return { type: 'refused', error: serverError(body?.error?.code ?? `HTTP_${response.status}`,
          body?.error?.message ?? '', response.status) };
      }
      await readEventStream(response, (message) => {
        const result = this._message(message, controller, (heartbeat) => {
          const limit = Math.max(3 * heartbeat, 2) * 1000;
          watchdog = setInterval(() => {
            if (Date.now() - lastActivity > limit) controller.abort();
          }, limit / 3);
        });
        if (result) {
          ending = result;
          return false;
        }
        return true;
      }, () => (lastActivity = Date.now()));
    } catch (error) {
      if (!controller.signal.aborted) ending = { type: 'dropped', error: networkError(error) };
    } finally {
      clearInterval(watchdog);
      controller.abort();
      if (this.controller === controller) {
        this.controller = null;
        this.connectionId = null;
      }
    }
    return ending;
  }

  /** One message of the stream; returns an ending when the stream is over. */
  _message(message, controller, startWatchdog) {
    if (this.controller !== controller) return { type: 'dropped' };
    let payload = null;
    try {
      payload = message.data ? JSON.parse(message.data) : null;
    } catch {
      payload = null;
    }
    switch (message.event) {
      case 'connected': {
        if (!payload?.connectionId) return { type: 'dropped' };
        startWatchdog(payload.heartbeatSeconds ?? 15);
        // Targets that were live on the previous stream were at its last event id; the others keep the position
        // they had (a target that had not caught up on a short-lived stream must not skip ahead with the others).
        for (const target of this.targets.values()) {
          if (target.live) target.resumePosition = this.lastEventId;
          target.live = false;
        }
        this.connectionId = payload.connectionId;
        this.failures = 0;
        this.statistics.connections += 1;
        this._send([...this.targets.keys()], payload.connectionId);
        // The server is reachable again: queued writes can go.
        this.offline?.serverReached();
        break;
      }
      case 'snapshot': this._snapshot(payload); this._inSync(); break;
      case 'changes': this._changes(payload); this._inSync(); break;
      case 'reset': this.statistics.resets += 1; break; // a snapshot follows; keep what we have until then
      case 'error': {
        const error = serverError(payload?.code ?? 'INTERNAL', payload?.message ?? 'listener failed', 400);
        if (!payload?.target) return { type: 'refused', error };
        // UNAVAILABLE: the server dropped the target for a passing reason ("add it again"), as Firestore's
        // listeners ride out; anything else (a rule, a limit) ends the listener.
        if (error.code === 'unavailable') this._addAgain(payload.target);
        else this._fail(payload.target, error);
        break;
      }
      case 'auth_revoked': return { type: 'authRevoked' };
      case 'overflow': return { type: 'overflow' };
      default: break; // id-only blocks, events of newer servers
    }
    if (message.id) this.lastEventId = message.id;
    return null;
  }

  /** Where the targets of stream `connection` are added and removed. */
  _targetsPath(connection) {
    return `/api/listen/${connection}?affinity=${this.affinity}`;
  }

  /**
   * POST /api/listen/{connection} adding `ids`, one request each so one bad target fails alone. A request that
   * fails on its way (the network, a busy server) while the stream stays open is sent again after a pause: a
   * target never added would hear nothing on a stream that is otherwise healthy.
   */
  async _send(ids, connection) {
    for (const id of ids) {
      for (let attempt = 1; ; attempt += 1) {
        const target = this.targets.get(id);
        if (!target || this.connectionId !== connection) break;
        const entry = { id, ...target.spec };
        if (target.resumePosition) entry.resumeAfter = target.resumePosition;
        try {
          await this.db._call('POST', this._targetsPath(connection), { body: { add: [entry] } });
          break;
        } catch (error) {
          // The stream is open but the node that answered does not know it: drop the stream, so that it is
          // reopened (after the usual back-off) and every target re-added with its position.
          if (error.serverCode === 'NOT_FOUND' && this.connectionId === connection) {
            this.controller?.abort();
            return;
          }
          if (!error.network && error.serverCode !== 'NOT_FOUND' && !isTransient(error)) {
            this._fail(id, error);
            break;
          }
          // Unreachable: show what the cache has meanwhile.
          if (error.network && this.offline && !target.hasFirstEvent) this._publish(id, null);
          // A gone stream is handled by the next one, which adds the target again; an open one gets it again.
          if (this.connectionId !== connection) break;
          await new Promise((resolve) => setTimeout(resolve, backOffDelay(attempt)));
        }
      }
    }
  }

  /**
   * Adds target `id` to the stream again after a pause that grows with each drop in a row (reset by its next
   * event), from where it was: the events before the drop were all delivered, so a live target resumes after the
   * last of them; one that never went live keeps the position it was added with. A new stream re-adds it anyway.
   */
  _addAgain(id) {
    const target = this.targets.get(id);
    if (!target) return;
    if (target.live) target.resumePosition = this.lastEventId;
    target.live = false;
    target.drops += 1;
    const connection = this.connectionId;
    setTimeout(() => {
      if (this.connectionId === connection && this.targets.get(id) === target) this._send([id], connection);
    }, backOffDelay(target.drops));
  }

  _fail(id, error) {
    const target = this.targets.get(id);
    if (!target) return;
    this.remove(id);
    target.fail(error);
  }

  _failAll(error) {
    for (const id of [...this.targets.keys()]) this._fail(id, error);
  }
}

/**
 * Listens to a document or a query: `onSnapshot(ref, next, error?)`, `onSnapshot(ref, {next, error})` or
 * `onSnapshot(ref, {includeMetadataChanges: true}, next, error?)`. Returns the unsubscribe function.
 */
export function onSnapshot(reference, ...args) {
  let options = {};
  if (args[0] && typeof args[0] === 'object' && typeof args[0].next !== 'function' && typeof args[0].error !== 'function') {
    options = args.shift();
  }
  let next;
  let onError;
  if (typeof args[0] === 'function') [next, onError] = args;
  else ({ next, error: onError } = args[0] ?? {});
  const db = reference.firestore;
  const includeMetadata = !!options.includeMetadataChanges;
  let spec;
  let local;
  let deliver;
  if (reference instanceof DocumentReference) {
    spec = { doc: reference.path };
    local = { doc: reference.path };
    deliver = (documents, changes, metadata) => {
      if (!includeMetadata && delivered && !changes.length) return;
      delivered = true;
      next?.(new DocumentSnapshot(reference, documents[0] ?? null, metadata));
    };
  } else {
    const { body, reversed } = encodeQuery(reference._q);
    spec = { query: body };
    local = { query: reference._q, reversed };
    deliver = (documents, changes, metadata, pendingPaths) => {
      if (!includeMetadata && delivered && !changes.length) return;
      delivered = true;
      next?.(new QuerySnapshot(reference, documents, metadata, changes, pendingPaths));
    };
  }
  let delivered = false;
  let active = true;
  const id = db._hub.add(spec, local, (...update) => active && deliver(...update), (error) => {
    if (!active) return;
    active = false;
    if (onError) onError(error);
    else console.error('onSnapshot', error);
  });
  return () => {
    active = false;
    db._hub.remove(id);
  };
}

Object.assign(ListenerHub.prototype, listenerViews);

/**
 * How long to wait before try number `n` (from 1) of a stream, or of adding a target to it: 0.1 s, 0.2 s, 0.4 s… up
 * to 5 s, jittered, so that a restarted server is not hit by every client at once.
 */
function backOffDelay(n) {
  const ceiling = Math.min(5000, 100 * 2 ** Math.min(n - 1, 10));
  return ceiling / 2 + (Math.random() * ceiling) / 2;
}

/** 16 random hex digits: the hub's key for load balancers (not a secret; it only picks a node). */
function affinityKey() {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
