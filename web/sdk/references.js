// References and snapshots: `collection`, `doc`, the query and reference types and the snapshot types, shaped as
// Firestore's modular API. References are cheap values; nothing is sent until a read, write or listener. The
// database they belong to is database.js's; this module does not import it (the listener hub and the offline
// store, which the database makes, use these types), so a database is recognised by its `type`.

import { invalidArgument } from './errors.js';
import { readValue } from './types.js';
import { autoId, documentValue, fieldText, splitFieldPath } from './values.js';

function splitPath(path) {
  if (typeof path !== 'string' || !path) throw invalidArgument('a path must be a non-empty string');
  const segments = path.split('/').filter((s) => s !== '');
  for (const segment of segments) {
    if (segment === '.' || segment === '..' || /^__.*__$/.test(segment)) {
      throw invalidArgument(`invalid path segment "${segment}" in ${path}`);
    }
  }
  return segments;
}

function isDatabase(value) {
  return value?.type === 'firestore' && typeof value._call === 'function';
}

function resolve(parent, path, segments) {
  const base = isDatabase(parent) ? [] : parent.path.split('/');
  return [...base, ...splitPath([path, ...segments].join('/'))];
}

function databaseOf(parent) {
  if (isDatabase(parent)) return parent;
  if (isDatabase(parent?.firestore)) return parent.firestore;
  throw invalidArgument('expected a database or a reference');
}

/** A collection reference: `collection(db, 'users', uid, 'todos')` or `collection(docRef, 'todos')`. */
export function collection(parent, path, ...pathSegments) {
  const segments = resolve(parent, path, pathSegments);
  if (segments.length % 2 !== 1) throw invalidArgument(`${segments.join('/')} is not a collection path`);
  return new CollectionReference(databaseOf(parent), segments.join('/'));
}

/** Every collection with this ID, anywhere in the database. */
export function collectionGroup(db, collectionId) {
  if (!collectionId || collectionId.includes('/')) throw invalidArgument('a collection group is one collection ID');
  return new Query(db, { source: { collectionGroup: collectionId } });
}

/**
 * A document reference: `doc(db, 'users', uid)`, `doc(collectionRef, id)`, or `doc(collectionRef)` for a new
 * automatic ID (made on the client, in the server's format).
 */
export function doc(parent, path, ...pathSegments) {
  if (parent instanceof CollectionReference && path === undefined) path = autoId();
  const segments = resolve(parent, path, pathSegments);
  if (segments.length % 2 !== 0) throw invalidArgument(`${segments.join('/')} is not a document path`);
  return new DocumentReference(databaseOf(parent), segments.join('/'));
}

/** A query: a source (collection or collection group) with filters, order, limit and cursors. */
export class Query {
  constructor(firestore, q, converter = null) {
    this.firestore = firestore;
    this.type = 'query';
    this._q = { where: [], orderBy: [], ...q };
    this.converter = converter;
  }

  withConverter(converter) {
    return new Query(this.firestore, this._q, converter);
  }
}

/** A collection: the query of all its documents, and a parent of document references. */
export class CollectionReference extends Query {
  constructor(firestore, path, converter = null) {
    super(firestore, { source: { collection: path } }, converter);
    this.type = 'collection';
    this.path = path;
    this.id = path.slice(path.lastIndexOf('/') + 1);
  }

  /** The document that holds this collection, or null at the top. */
  get parent() {
    const index = this.path.lastIndexOf('/');
    return index < 0 ? null : new DocumentReference(this.firestore, this.path.slice(0, index));
  }

  withConverter(converter) {
    return new CollectionReference(this.firestore, this.path, converter);
  }
}

/** A document's location. */
export class DocumentReference {
  constructor(firestore, path, converter = null) {
    this.firestore = firestore;
    this.type = 'document';
    this.path = path;
    this.id = path.slice(path.lastIndexOf('/') + 1);
    this.converter = converter;
  }

  get parent() {
    return new CollectionReference(this.firestore, this.path.slice(0, this.path.lastIndexOf('/')), this.converter);
  }

  withConverter(converter) {
    return new DocumentReference(this.firestore, this.path, converter);
  }

  toJSON() {
    return { path: this.path };
  }
}

/** Whether two references or queries point at the same thing. */
export function refEqual(a, b) {
  return a?.type === b?.type && a.path === b.path && a.firestore === b.firestore;
}

/** Whether two queries (or references) are the same query of the same database, with the same converter. */
export function queryEqual(a, b) {
  if (!(a instanceof Query) || !(b instanceof Query)) return false;
  return a.firestore === b.firestore && a.converter === b.converter && a.type === b.type &&
    JSON.stringify(a._q) === JSON.stringify(b._q);
}

/** Whether two document snapshots, or two query snapshots, show the same data with the same metadata. */
export function snapshotEqual(a, b) {
  if (a instanceof DocumentSnapshot && b instanceof DocumentSnapshot) {
    return refEqual(a.ref, b.ref) && a.ref.converter === b.ref.converter && a.metadata.isEqual(b.metadata) &&
      a.exists() === b.exists() && JSON.stringify(a._document?.data) === JSON.stringify(b._document?.data) &&
      JSON.stringify(a._document?._pendingTimes) === JSON.stringify(b._document?._pendingTimes);
  }
  if (a instanceof QuerySnapshot && b instanceof QuerySnapshot) {
    return queryEqual(a.query, b.query) && a.metadata.isEqual(b.metadata) && a.size === b.size &&
      a.docs.every((doc, index) => snapshotEqual(doc, b.docs[index]));
  }
  return false;
}

/** Where a snapshot came from. */
export class SnapshotMetadata {
  constructor(hasPendingWrites = false, fromCache = false) {
    this.hasPendingWrites = hasPendingWrites;
    this.fromCache = fromCache;
  }
  isEqual(other) {
    return other.hasPendingWrites === this.hasPendingWrites && other.fromCache === this.fromCache;
  }
}

/**
 * A document as read: `exists()`, `data()`, `get(field)`, and Kura's `createTime`, `updateTime`, `version` (1 on
 * creation, +1 per write).
 */
export class DocumentSnapshot {
  constructor(ref, document, metadata) {
    this.ref = ref;
    this.id = ref.id;
    this.metadata = metadata;
    this._document = document;
    this.createTime = document?.createTime ?? null;
    this.updateTime = document?.updateTime ?? null;
    this.version = document?.version ?? null;
  }

  exists() {
    return this._document != null;
  }

  /**
   * The document's data (a copy), or undefined when it does not exist; with a converter, its result. The server's
   * time strings read as Timestamps. A server timestamp still pending reads as `null`, or with `{serverTimestamps:
   * 'estimate'}` as the local time of the write, with `'previous'` as the field's value before it (as Firestore).
   */
  data(options = {}) {
    if (!this._document) return undefined;
    if (this.ref.converter) return this.ref.converter.fromFirestore(new DocumentSnapshot(
      new DocumentReference(this.ref.firestore, this.ref.path), this._document, this.metadata), options);
    return readValue(this._data(options));
  }

  /** One field by dotted path (or FieldPath); undefined when absent. `options` as for `data`. */
  get(field, options = {}) {
    if (!this._document) return undefined;
    const value = documentValue({ ...this._document, data: this._data(options) }, fieldText(field));
    return value === undefined ? undefined : readValue(value);
  }

  /** The stored data with pending server times resolved by `serverTimestamps` (a copy). */
  _data(options) {
    const serverTimestamps = options?.serverTimestamps ?? 'none';
    const data = structuredClone(this._document.data);
    if (!['none', 'estimate', 'previous'].includes(serverTimestamps)) {
      throw invalidArgument(`serverTimestamps is 'none', 'estimate' or 'previous' (got ${serverTimestamps})`);
    }
    const pending = this._document._pendingTimes;
    if (!pending || serverTimestamps === 'estimate') return data;
    for (const [field, { previous }] of Object.entries(pending)) {
      setField(data, splitFieldPath(field), serverTimestamps === 'previous' ? structuredClone(previous ?? null) : null);
    }
    return data;
  }
}

function setField(data, names, value) {
  let map = data;
  for (const name of names.slice(0, -1)) {
    if (!map[name] || typeof map[name] !== 'object') return;
    map = map[name];
  }
  map[names[names.length - 1]] = value;
}

/** A document that is known to exist (in query results). */
export class QueryDocumentSnapshot extends DocumentSnapshot {
  data(options) {
    return super.data(options);
  }
}

/**
 * A query's documents; `docChanges()` lists what changed since the listener's previous snapshot. The snapshot's
 * `metadata.hasPendingWrites` is true when any of its documents has a pending write; each document's own metadata
 * says so only for the documents with a pending write (`pendingPaths`), as in Firestore.
 */
export class QuerySnapshot {
  constructor(query, documents, metadata, changes = null, pendingPaths = null) {
    this.query = query;
    this.metadata = metadata;
    this._pendingPaths = pendingPaths ?? new Set();
    const converter = query.converter;
    this.docs = documents.map((document) => snapshotOf(query.firestore, document, this._metadataOf(document), converter));
    this.size = this.docs.length;
    this.empty = this.size === 0;
    this._changes = changes;
  }

  /** The metadata of one of the snapshot's documents. */
  _metadataOf(document) {
    const pending = this.metadata.hasPendingWrites && this._pendingPaths.has(document.path);
    if (pending === this.metadata.hasPendingWrites) return this.metadata;
    return new SnapshotMetadata(pending, this.metadata.fromCache);
  }

  forEach(callback, thisArg) {
    this.docs.forEach((snapshot) => callback.call(thisArg, snapshot));
  }

  /** `{type: 'added'|'modified'|'removed', doc, oldIndex, newIndex}` in order; indices as Firestore's. */
  docChanges() {
    if (this._changes) {
      return this._changes.map((change) => ({
        type: change.type,
        doc: snapshotOf(this.query.firestore, change.document, this._metadataOf(change.document), this.query.converter),
        oldIndex: change.oldIndex,
        newIndex: change.newIndex,
      }));
    }
    return this.docs.map((doc, index) => ({ type: 'added', doc, oldIndex: -1, newIndex: index }));
  }
}

/** A QueryDocumentSnapshot of a stored document (API JSON). */
export function snapshotOf(db, document, metadata, converter = null) {
  return new QueryDocumentSnapshot(new DocumentReference(db, document.path, converter), document, metadata);
}
