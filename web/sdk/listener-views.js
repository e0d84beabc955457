// What listeners see: the server's events applied to each target's view, with queued offline writes on top, and
// the changes between one delivery and the next. Methods of ListenerHub (listeners.js), as KuraClient's
// ListenerHub+Views.swift.

import { inSource } from './query.js';
import { SnapshotMetadata } from './references.js';

/** Mixed into ListenerHub.prototype by listeners.js. */
export const listenerViews = {
  _snapshot(payload) {
    this.statistics.snapshotEvents += 1;
    const target = this.targets.get(payload?.target);
    if (!target) return;
    const documents = payload.documents ?? [];
    target.serverView = documents;
    target.hasFirstEvent = true;
    target.live = true;
    target.drops = 0;
    target.synced = true;
    target.serverRevision += 1;
    if (this.offline) {
      if (target.local.doc) this.offline.store(target.local.doc, documents[0] ?? null);
      else this.offline.storeAll(documents);
      for (const document of documents) this.offline.settle(document.path, document.version);
      if (target.local.doc && !documents.length) this.offline.settle(target.local.doc, null);
    }
    this._publish(payload.target, null);
  },

  _changes(payload) {
    this.statistics.changesEvents += 1;
    const target = this.targets.get(payload?.target);
    if (!target) return;
    const view = [...target.serverView];
    const changes = [];
    for (const item of payload.changes ?? []) {
      const document = item.document;
      if (!document || !item.type) continue;
      const old = view.findIndex((d) => d.path === document.path);
      if (old >= 0) view.splice(old, 1);
      let index = -1;
      if (item.type !== 'removed') {
        index = Math.min(Math.max(item.newIndex ?? view.length, 0), view.length);
        view.splice(index, 0, document);
      }
      changes.push({ type: item.type, document, oldIndex: old, newIndex: index });
    }
    target.serverView = view;
    target.hasFirstEvent = true;
    target.live = true;
    target.drops = 0;
    target.synced = true;
    target.serverRevision += 1;
    if (this.offline) {
      for (const change of changes) {
        this.offline.settle(change.document.path, change.type === 'removed' ? null : change.document.version);
        if (change.type === 'removed' && target.local.doc) this.offline.store(change.document.path, null);
        else if (change.type === 'removed') this.offline.forget(change.document.path);
        else this.offline.store(change.document.path, change.document);
      }
    }
    this._publish(payload.target, { revision: target.serverRevision, changes });
  },

  _localChange(paths) {
    for (const [id, target] of this.targets) {
      if ([...paths].some((path) => covers(target.local, path))) this._publish(id, null);
    }
  },

  /**
   * The stream is down: every listener is out of sync with the server, so what it shows is from the cache
   * (`fromCache: true`; a listener with `includeMetadataChanges` gets that as a metadata-only snapshot), and
   * listeners that never heard from the server show what the cache has. A target is in sync again at its next
   * event on a new stream (a resumed target gets one `changes` event, possibly empty).
   */
  _showCache() {
    for (const [id, target] of this.targets) {
      const wasSynced = target.synced;
      target.synced = false;
      if (wasSynced || (this.offline && !target.hasFirstEvent)) this._publish(id, null);
    }
  },

  /**
   * Computes what target `id` shows now — the server's view, with queued (and acknowledged but not yet streamed)
   * writes on top, or the cache's answer while the server has said nothing — and delivers it if it changed.
   */
  _publish(id, serverChanges) {
    const target = this.targets.get(id);
    if (!target) return;
    const reversed = !!target.local.reversed;
    let documents = reversed ? [...target.serverView].reverse() : target.serverView;
    const metadata = { fromCache: !target.hasFirstEvent || !target.synced, hasPendingWrites: false };
    let pendingPaths = new Set();
    const offline = this.offline;
    if (offline) {
      const isCovered = (path) => covers(target.local, path);
      const unconfirmed = target.hasFirstEvent ? offline.unconfirmedWrites(isCovered, target.serverView) : [];
      const pending = [...unconfirmed, ...offline.pendingWrites().filter((w) => isCovered(w.path))];
      if (!target.hasFirstEvent || pending.length) {
        const local = this._localView(target, pending);
        // Before the server spoke, a document the cache knows nothing about has nothing to show.
        if (local === null && !target.hasFirstEvent) return;
        if (local !== null) documents = local;
        metadata.hasPendingWrites = pending.length > 0;
        pendingPaths = new Set(pending.map((w) => w.path));
      }
    } else if (!target.hasFirstEvent) {
      return;
    }
    // The documents are exactly the server's view (also while out of sync: `fromCache` alone changes no document).
    const isServer = target.hasFirstEvent && !metadata.hasPendingWrites;
    let changes;
    if (!target.delivered) {
      changes = documents.map((document, index) => ({ type: 'added', document, oldIndex: -1, newIndex: index }));
    } else if (serverChanges && !reversed && isServer && target.viewIsServer &&
      serverChanges.revision === target.serverRevision && target.viewRevision === target.serverRevision - 1) {
      // The server's changes describe exactly the step from what was delivered to its new view.
      changes = serverChanges.changes;
    } else {
      changes = diff(target.view, documents);
    }
    // Which documents have pending writes is metadata too (each document's `metadata.hasPendingWrites`).
    metadata.pendingKey = [...pendingPaths].filter((path) => documents.some((d) => d.path === path)).sort().join('\n');
    const sameMetadata = target.metadata && target.metadata.fromCache === metadata.fromCache &&
      target.metadata.hasPendingWrites === metadata.hasPendingWrites && target.metadata.pendingKey === metadata.pendingKey;
    if (target.delivered && !changes.length && sameMetadata) return;
    target.view = documents;
    target.metadata = metadata;
    target.delivered = true;
    target.viewIsServer = isServer;
    target.viewRevision = target.serverRevision;
    try {
      target.deliver(documents, changes, new SnapshotMetadata(metadata.hasPendingWrites, metadata.fromCache), pendingPaths);
    } catch (error) {
      console.error(error);
    }
  },

  /** The target's documents from the server's view (or the cache, before the server spoke) with `pending` applied. */
  _localView(target, pending) {
    const offline = this.offline;
    if (target.local.doc) {
      const path = target.local.doc;
      const base = target.hasFirstEvent ? target.serverView[0] ?? null : offline.cached(path);
      const { document } = offline.overlay(path, base, pending);
      if (document === undefined) return null;
      return document ? [document] : [];
    }
    const base = target.hasFirstEvent ? target.serverView : offline.cachedDocuments(target.local.query);
    return offline.localResults(target.local.query, base, pending);
  },
};

export function covers(local, path) {
  return local.doc ? local.doc === path : inSource(local.query, path);
}

/**
 * The changes that turn `old` into `now`, each index valid after the previous changes are applied (as Firestore's
 * DocumentChange indices are).
 */
export function diff(old, now) {
  const nowPaths = new Set(now.map((d) => d.path));
  const current = [...old];
  const changes = [];
  for (const document of old) {
    if (nowPaths.has(document.path)) continue;
    const index = current.findIndex((d) => d.path === document.path);
    current.splice(index, 1);
    changes.push({ type: 'removed', document, oldIndex: index, newIndex: -1 });
  }
  now.forEach((document, index) => {
    if (index < current.length && current[index].path === document.path) {
      if (!sameDocument(current[index], document)) {
        current[index] = document;
        changes.push({ type: 'modified', document, oldIndex: index, newIndex: index });
      }
      return;
    }
    const old = current.findIndex((d) => d.path === document.path);
    if (old >= 0) {
      current.splice(old, 1);
      current.splice(index, 0, document);
      changes.push({ type: 'modified', document, oldIndex: old, newIndex: index });
    } else {
      current.splice(index, 0, document);
      changes.push({ type: 'added', document, oldIndex: -1, newIndex: index });
    }
  });
  return changes;
}

function sameDocument(a, b) {
  return a.version === b.version && a.updateTime === b.updateTime && JSON.stringify(a.data) === JSON.stringify(b.data);
}
