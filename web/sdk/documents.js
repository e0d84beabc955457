// Reads and writes: getDoc/getDocs (with the offline cache's fallback), setDoc/addDoc/updateDoc/deleteDoc,
// getCountFromServer, writeBatch and runTransaction, all through POST /api/commit so field-value sentinels work
// everywhere.

import { invalidArgument, KuraError } from './errors.js';
import { terminated } from './database.js';
import { encodePath } from './transport.js';
import { cacheMiss } from './offline.js';
import { encodeQuery, inSource } from './query.js';
import {
  CollectionReference, doc, DocumentReference, DocumentSnapshot, QuerySnapshot, SnapshotMetadata,
} from './references.js';
import { encodeWrite } from './values.js';

// Reads

/** Reads a document: from the server, or (with persistence, when it cannot be reached) from the cache. */
export function getDoc(ref) {
  return readDocument(ref, 'default');
}
/** Reads a document from the cache only (`unavailable` when the cache does not know it). */
export function getDocFromCache(ref) {
  return readDocument(ref, 'cache');
}
/** Reads a document from the server only. */
export function getDocFromServer(ref) {
  return readDocument(ref, 'server');
}

/**
 * The stored document at `path`, or null when it is missing. `?missing=ok` has the server answer a missing
 * document with 200 `{exists: false}` rather than a 404, which the browser would log as a failed request.
 */
async function fetchDocument(db, path) {
  const { body } = await db._call('GET', `/api/docs/${encodePath(path)}?missing=ok`);
  return body?.exists === false ? null : body;
}

async function readDocument(ref, source) {
  checkReference(ref, DocumentReference);
  const db = ref.firestore;
  if (db._terminated) throw terminated();
  const offline = db._offline;
  if (offline) await offline.ready;
  if (source !== 'cache' || !offline) {
    let document;
    try {
      document = await fetchDocument(db, ref.path);
    } catch (error) {
      if (!offline || !error.network || source === 'server') throw error;
    }
    if (document !== undefined) {
      if (!offline) return new DocumentSnapshot(ref, document, new SnapshotMetadata(false, false));
      offline.store(ref.path, document);
      offline.serverReached();
      const overlaid = offline.overlay(ref.path, document, offline.pendingWrites());
      return new DocumentSnapshot(ref, overlaid.document, new SnapshotMetadata(overlaid.touched, false));
    }
  }
  const { document, touched } = offline.overlay(ref.path, offline.cached(ref.path), offline.pendingWrites());
  if (document === undefined) throw cacheMiss(ref.path);
  return new DocumentSnapshot(ref, document, new SnapshotMetadata(touched, true));
}

/** Runs a query: every matching document (following the server's pages), or the cache's answer offline. */
export function getDocs(query) {
  return readQuery(query, 'default');
}
/** Runs a query over the cache only. */
export function getDocsFromCache(query) {
  return readQuery(query, 'cache');
}
/** Runs a query on the server only. */
export function getDocsFromServer(query) {
  return readQuery(query, 'server');
}

async function readQuery(query, source) {
  const db = query.firestore;
  if (db._terminated) throw terminated();
  const offline = db._offline;
  if (offline) await offline.ready;
  if (source !== 'cache' || !offline) {
    let documents;
    try {
      documents = await fetchAll(query);
    } catch (error) {
      if (!offline || !error.network || source === 'server') throw error;
    }
    if (documents) {
      if (!offline) return new QuerySnapshot(query, documents, new SnapshotMetadata(false, false));
      offline.storeAll(documents);
      offline.serverReached();
      const pending = offline.pendingWrites().filter((w) => inSource(query._q, w.path));
      if (!pending.length) return new QuerySnapshot(query, documents, new SnapshotMetadata(false, false));
      return new QuerySnapshot(query, offline.localResults(query._q, documents, pending), new SnapshotMetadata(true, false),
        null, new Set(pending.map((w) => w.path)));
    }
  }
  const pending = offline.pendingWrites().filter((w) => inSource(query._q, w.path));
  const documents = offline.localResults(query._q, offline.cachedDocuments(query._q), pending);
  return new QuerySnapshot(query, documents, new SnapshotMetadata(pending.length > 0, true), null,
    new Set(pending.map((w) => w.path)));
}

async function fetchAll(query) {
  const q = query._q;
  const documents = [];
  let pageToken = null;
  do {
    const remaining = q.limit == null ? 1000 : Math.min(q.limit - documents.length, 1000);
    const { body, reversed } = encodeQuery(q, { pageLimit: remaining });
    if (pageToken) body.pageToken = pageToken;
    const response = await db(query)._call('POST', '/api/query', { body });
    documents.push(...(response.body.documents ?? []));
    pageToken = response.body.nextPageToken;
    if (q.limit != null && documents.length >= q.limit) pageToken = null;
    if (!pageToken) return reversed ? documents.reverse() : documents;
  } while (true);
}

function db(query) {
  return query.firestore;
}

/** Counts the query's documents on the server: `(await getCountFromServer(q)).data().count`. */
export async function getCountFromServer(query) {
  const { body } = encodeQuery(query._q);
  const response = await query.firestore._call('POST', '/api/query/count', { body });
  const count = response.body.count;
  return { data: () => ({ count }) };
}

// Writes

/** Sends writes as one atomic commit, or queues them (persistence). */
export async function commitWrites(database, writes) {
  if (database._terminated) throw terminated();
  if (database._offline) return database._offline.submit(writes);
  await database._call('POST', '/api/commit', { body: { writes } });
}

/** How the database encodes data: `ignoreUndefinedProperties` drops undefined fields instead of refusing them. */
function encoding(ref) {
  return { ignoreUndefined: !!ref.firestore._settings.ignoreUndefinedProperties };
}

function toData(ref, data, options) {
  if (ref.converter) data = ref.converter.toFirestore(data, options);
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw invalidArgument('document data must be an object');
  return data;
}

function setWrite(ref, data, options = {}) {
  checkReference(ref, DocumentReference);
  if (options.mergeFields) throw invalidArgument('mergeFields is not supported: use {merge: true} or updateDoc');
  return encodeWrite('set', ref.path, toData(ref, data, options), { merge: !!options.merge, ...encoding(ref) });
}

function updateWrite(ref, fieldOrData, value, more) {
  checkReference(ref, DocumentReference);
  let data = fieldOrData;
  if (typeof fieldOrData === 'string' || fieldOrData?._names) {
    data = {};
    const pairs = [fieldOrData, value, ...more];
    for (let i = 0; i < pairs.length; i += 2) {
      const field = pairs[i]?._names ? pairs[i]._text() : pairs[i];
      data[field] = pairs[i + 1];
    }
  }
  if (!data || typeof data !== 'object' || !Object.keys(data).length) throw invalidArgument('updateDoc needs fields');
  return encodeWrite('update', ref.path, data, encoding(ref));
}

/** Creates or replaces the document; `{merge: true}` deep-merges into what is there. */
export async function setDoc(ref, data, options) {
  await commitWrites(ref.firestore, [setWrite(ref, data, options)]);
}

/** Creates a document with an automatic ID; resolves its reference. */
export async function addDoc(collectionRef, data) {
  checkReference(collectionRef, CollectionReference);
  const ref = doc(collectionRef);
  await commitWrites(ref.firestore, [encodeWrite('create', ref.path, toData(ref, data), encoding(ref))]);
  return ref;
}

/** Sets fields by dotted path (`{'address.city': 'Kyoto'}` or `'address.city', 'Kyoto', …`); `not-found` if missing. */
export async function updateDoc(ref, fieldOrData, value, ...more) {
  await commitWrites(ref.firestore, [updateWrite(ref, fieldOrData, value, more)]);
}

/** Deletes the document (succeeds when there was nothing). */
export async function deleteDoc(ref) {
  checkReference(ref, DocumentReference);
  await commitWrites(ref.firestore, [encodeWrite('delete', ref.path)]);
}

/** Several writes applied all or nothing (≤ 500). */
export class WriteBatch {
  constructor(database) {
    this._db = database;
    this._writes = [];
    this._committed = false;
  }
  set(ref, data, options) {
    this._add(setWrite(ref, data, options));
    return this;
  }
  update(ref, fieldOrData, value, ...more) {
    this._add(updateWrite(ref, fieldOrData, value, more));
    return this;
  }
  delete(ref) {
    checkReference(ref, DocumentReference);
    this._add(encodeWrite('delete', ref.path));
    return this;
  }
  _add(write) {
    if (this._committed) throw new KuraError('failed-precondition', 'this batch was committed already');
    this._writes.push(write);
  }
  async commit() {
    this._committed = true;
    if (!this._writes.length) return;
    await commitWrites(this._db, this._writes);
  }
}

/** A new batch of writes. */
export function writeBatch(database) {
  return new WriteBatch(database);
}

/** The transaction handed to `runTransaction`'s function. */
export class Transaction {
  constructor(database) {
    this._db = database;
    this._reads = new Map();
    this._writes = [];
  }

  /** Reads a document from the server and remembers its version for the commit's precondition. */
  async get(ref) {
    checkReference(ref, DocumentReference);
    if (this._writes.length) throw invalidArgument('a transaction reads before it writes');
    const document = await fetchDocument(this._db, ref.path);
    this._reads.set(ref.path, document?.version ?? null);
    return new DocumentSnapshot(ref, document, new SnapshotMetadata(false, false));
  }
  set(ref, data, options) {
    this._writes.push(setWrite(ref, data, options));
    return this;
  }
  update(ref, fieldOrData, value, ...more) {
    this._writes.push(updateWrite(ref, fieldOrData, value, more));
    return this;
  }
  delete(ref) {
    checkReference(ref, DocumentReference);
    this._writes.push(encodeWrite('delete', ref.path));
    return this;
  }

  _commitBody() {
    const writes = this._writes.map((write) => {
      if (!this._reads.has(write.path)) return write;
      const version = this._reads.get(write.path);
      return { ...write, precondition: version == null ? { exists: false } : { version } };
    });
    return { writes };
  }
}

/**
 * Runs `update(transaction)` and commits its writes with the versions it read as preconditions; when another
 * writer got there first (`failed-precondition`, `aborted`) it runs again after a short random backoff, up to
 * `maxAttempts` (5) times. Always online: transactions do not go through the offline queue.
 */
export async function runTransaction(database, update, { maxAttempts = 5 } = {}) {
  for (let attempt = 1; ; attempt++) {
    const transaction = new Transaction(database);
    const result = await update(transaction);
    if (!transaction._writes.length) return result;
    try {
      await database._call('POST', '/api/commit', { body: transaction._commitBody() });
      return result;
    } catch (error) {
      const conflict = error.code === 'failed-precondition' || error.code === 'aborted';
      if (!conflict || attempt >= maxAttempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
    }
  }
}

// The offline queue

/** Resolves when every queued write has been acknowledged by the server (at once without persistence). */
export async function waitForPendingWrites(database) {
  await database._offline?.waitForPendingWrites();
}

/** Resolves the number of queued writes not acknowledged yet (0 without persistence). */
export async function getPendingWriteCount(database) {
  if (!database._offline) return 0;
  await database._offline.ready;
  return database._offline.pendingCount;
}

/**
 * Calls `callback({error, writes})` when the server refuses a write that was queued offline (rules, an update of a
 * missing document, a failed precondition); the writes are dropped. Returns the unsubscribe.
 */
export function onWriteError(database, callback) {
  const offline = database._offline;
  if (!offline) return () => {};
  offline.errorObservers.add(callback);
  return () => offline.errorObservers.delete(callback);
}

function checkReference(ref, type) {
  if (!(ref instanceof type)) throw invalidArgument(`expected a ${type.name}`);
}

