// Field values: the sentinels (serverTimestamp, increment, arrayUnion, arrayRemove, deleteField), how writes are
// encoded for POST /api/commit (sentinels become `transforms`), and the server's semantics run locally for
// latency compensation and the offline cache: value order, field paths, applying a write to a document.

import { invalidArgument } from './errors.js';
import { Bytes, GeoPoint, Timestamp } from './types.js';

/** A value the server resolves atomically with the write. Made by the functions below. */
export class FieldValue {
  constructor(kind, operand) {
    this._kind = kind;
    this._operand = operand;
  }

  isEqual(other) {
    return other instanceof FieldValue && other._kind === this._kind &&
      JSON.stringify(other._operand) === JSON.stringify(this._operand);
  }
}

/** The commit time on the server (stored as the server's time text; reads back as a Timestamp). */
export const serverTimestamp = () => new FieldValue('serverTimestamp', true);
/** Adds `n` to the field (a missing or non-number field becomes `n`). */
export const increment = (n) => new FieldValue('increment', n);
/** Adds the elements that are not in the array yet. */
export const arrayUnion = (...elements) => new FieldValue('arrayUnion', elements.map((e) => toJSONValue(e)));
/** Removes every occurrence of the elements. */
export const arrayRemove = (...elements) => new FieldValue('arrayRemove', elements.map((e) => toJSONValue(e)));
/** Removes the field (in `updateDoc` and `setDoc(…, {merge: true})`). */
export const deleteField = () => new FieldValue('delete', true);

/** A field path given as separate names (for names that contain dots), as Firebase's `FieldPath`. */
export class FieldPath {
  constructor(...names) {
    this._names = names;
  }
  isEqual(other) {
    return other instanceof FieldPath && other._text() === this._text();
  }
  _text() {
    // A data field named like a metadata field (`new FieldPath('id')`, as in Firebase, is the field "id", not the
    // document ID) goes quoted, which the server reads as a data field.
    if (this._names.length === 1 && METADATA_NAMES.includes(this._names[0])) return '`' + this._names[0] + '`';
    return joinFieldPath(this._names);
  }
}

/** The field names the server reads as document metadata unless quoted with backticks. */
const METADATA_NAMES = ['id', '__name__', 'createTime', 'updateTime'];

/** The document ID as a field for `where` and `orderBy` (Kura's `id` metadata field). */
export function documentId() {
  return new FieldPath('__id__');
}

/** The server's text for a field path argument (`'a.b'`, a FieldPath, or `documentId()`). */
export function fieldText(field) {
  if (field instanceof FieldPath) return field._names[0] === '__id__' && field._names.length === 1 ? 'id' : field._text();
  if (typeof field !== 'string' || !field) throw invalidArgument('a field path must be a non-empty string');
  return field;
}

/** Names joined into a field path, quoting names that are not plain identifiers with backticks. */
export function joinFieldPath(names) {
  return names.map((name) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : '`' + name.replace(/([`\\])/g, '\\$1') + '`'))
    .join('.');
}

/** A field path's names (`` a.`b.c`.d `` → ['a', 'b.c', 'd']). */
export function splitFieldPath(path) {
  const names = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (quoted && c === '\\' && i + 1 < path.length) current += path[++i];
    else if (c === '`') quoted = !quoted;
    else if (c === '.' && !quoted) {
      names.push(current);
      current = '';
    } else current += c;
  }
  names.push(current);
  return names;
}

/**
 * A JS value as document data: Timestamps and Dates become the server's time text (RFC 3339, UTC, microseconds),
 * GeoPoints the map `{latitude, longitude}`, Bytes base64 text (types.js). An undefined field is refused with its
 * name, or left out when `ignoreUndefined` (Firestore's `ignoreUndefinedProperties`).
 */
export function toJSONValue(value) {
  return encodeValue(value, false, '');
}

function encodeValue(value, ignoreUndefined, field) {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalidArgument('numbers must be finite');
    return value;
  }
  if (value instanceof Timestamp) return value._serverText();
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw invalidArgument(`an invalid Date${field ? ` in field ${field}` : ''}`);
    return Timestamp.fromDate(value)._serverText();
  }
  if (value instanceof GeoPoint) return value.toJSON();
  if (value instanceof Bytes) return value.toBase64();
  if (Array.isArray(value)) {
    return value.map((element) => {
      if (element instanceof FieldValue) throw invalidArgument('field values cannot be used inside arrays');
      if (element === undefined) throw undefinedField(field, true);
      return encodeValue(element, ignoreUndefined, field);
    });
  }
  if (value instanceof FieldValue) return value;
  if (typeof value === 'object') {
    if (typeof value.toJSON === 'function' && !(value.constructor === Object)) {
      return encodeValue(value.toJSON(), ignoreUndefined, field);
    }
    const out = {};
    for (const [key, member] of Object.entries(value)) {
      const path = field ? `${field}.${key}` : key;
      if (member === undefined) {
        if (ignoreUndefined) continue;
        throw undefinedField(path);
      }
      out[key] = encodeValue(member, ignoreUndefined, path);
    }
    return out;
  }
  if (value === undefined) throw undefinedField(field);
  throw invalidArgument(`unsupported value of type ${typeof value}${field ? ` in field ${field}` : ''}`);
}

function undefinedField(field, inArray = false) {
  const where = field ? ` (found in field ${field}${inArray ? ', in an array' : ''})` : '';
  const remedy = inArray ? '' : ', or set ignoreUndefinedProperties: true in initializeFirestore to leave such fields out';
  return invalidArgument(`Unsupported field value: undefined${where}. Remove the field${remedy}`);
}

/**
 * One write for POST /api/commit: `{op, path, data?, merge?, transforms?}`. `data` is the caller's object;
 * sentinels anywhere in its maps become transforms. For `update`, top-level keys are dotted field paths.
 */
export function encodeWrite(op, path, data, { merge = false, precondition, ignoreUndefined = false } = {}) {
  const write = { op, path };
  if (op !== 'delete') {
    const transforms = [];
    const clean = {};
    for (const [key, value] of Object.entries(data ?? {})) {
      if (value === undefined) {
        if (ignoreUndefined) continue;
        throw undefinedField(key);
      }
      const names = op === 'update' ? splitFieldPath(key) : [key];
      const stripped = extract(encodeValue(value, ignoreUndefined, key), names, transforms, op === 'update');
      if (stripped !== undefined) clean[key] = stripped;
    }
    if (op === 'set' && !merge && transforms.some((t) => t.delete)) {
      throw invalidArgument('deleteField() needs updateDoc or setDoc with {merge: true}');
    }
    write.data = clean;
    if (merge) write.merge = true;
    if (transforms.length) write.transforms = transforms;
  }
  if (precondition) write.precondition = precondition;
  return write;
}

function extract(value, names, transforms, isUpdate) {
  if (value instanceof FieldValue) {
    transforms.push({ field: joinFieldPath(names), [value._kind]: value._operand });
    return undefined;
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const out = {};
    let hadTransform = false;
    for (const [key, member] of Object.entries(value)) {
      const stripped = extract(member, [...names, key], transforms, isUpdate);
      if (stripped === undefined) hadTransform = true;
      else out[key] = stripped;
    }
    // In an update, `{a: {b: increment(1)}}` must not replace `a` with `{}`: leave the map out when it held only
    // transforms.
    if (hadTransform && isUpdate && Object.keys(out).length === 0) return undefined;
    return out;
  }
  return value;
}

// Local evaluation (the server's semantics, docs/api.md "Queries")

/** null < false < true < numbers < strings < arrays < maps: 0…5. */
export function rank(value) {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'boolean') return 1;
  if (typeof value === 'number') return 2;
  if (typeof value === 'string') return 3;
  if (Array.isArray(value)) return 4;
  return 5;
}

const encoder = new TextEncoder();

function compareStrings(a, b) {
  if (a === b) return 0;
  // UTF-8 byte order equals code point order; JS compares UTF-16 code units, which differs above U+FFFF.
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

/** -1, 0 or 1 in the server's value order. */
export function compareValues(a, b) {
  const [l, r] = [rank(a), rank(b)];
  if (l !== r) return l < r ? -1 : 1;
  switch (l) {
    case 0: return 0;
    case 1: return a === b ? 0 : a ? 1 : -1;
    case 2:
      if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) === Number.isNaN(b) ? 0 : Number.isNaN(a) ? -1 : 1;
      return a === b ? 0 : a < b ? -1 : 1;
    case 3: return compareStrings(a, b);
    case 4:
      for (let i = 0; i < Math.min(a.length, b.length); i++) {
        const order = compareValues(a[i], b[i]);
        if (order) return order;
      }
      return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
    default: {
      const ak = Object.keys(a).sort(compareStrings);
      const bk = Object.keys(b).sort(compareStrings);
      for (let i = 0; i < Math.min(ak.length, bk.length); i++) {
        if (ak[i] !== bk[i]) return compareStrings(ak[i], bk[i]);
        const order = compareValues(a[ak[i]], b[bk[i]]);
        if (order) return order;
      }
      return ak.length === bk.length ? 0 : ak.length < bk.length ? -1 : 1;
    }
  }
}

export const valuesEqual = (a, b) => compareValues(a, b) === 0;

/** The value at a dotted field path of a stored document (`id`, `createTime`, `updateTime` are metadata). */
export function documentValue(document, field) {
  if (field === 'id' || field === '__name__') return document.id;
  if (field === 'createTime' || field === 'updateTime') return document[field];
  let value = document.data;
  for (const name of splitFieldPath(field)) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !(name in value)) return undefined;
    value = value[name];
  }
  return value;
}

function setPath(data, names, value) {
  const [first, ...rest] = names;
  if (!rest.length) {
    if (value === undefined) delete data[first];
    else data[first] = value;
    return;
  }
  const inner = data[first] && typeof data[first] === 'object' && !Array.isArray(data[first]) ? { ...data[first] } : {};
  setPath(inner, rest, value);
  data[first] = inner;
}

function deepMerge(base, changes) {
  const out = { ...base };
  for (const [key, value] of Object.entries(changes)) {
    const existing = out[key];
    const isMap = (v) => v && typeof v === 'object' && !Array.isArray(v);
    out[key] = isMap(value) && isMap(existing) ? deepMerge(existing, value) : value;
  }
  return out;
}

/**
 * An encoded `write` applied to `document` (`null`: known not to exist) at `time`; `null` when the result does not
 * exist (a delete, or an update of a missing document, which the server would refuse).
 */
export function applyWrite(write, document, time) {
  let data;
  switch (write.op) {
    case 'delete': return null;
    case 'create': data = structuredClone(write.data); break;
    case 'set': data = write.merge ? deepMerge(document?.data ?? {}, write.data) : structuredClone(write.data); break;
    case 'update':
      if (!document) return null;
      data = structuredClone(document.data);
      for (const [path, value] of Object.entries(write.data)) setPath(data, splitFieldPath(path), value);
      break;
    default: return document;
  }
  for (const transform of write.transforms ?? []) {
    const names = splitFieldPath(transform.field);
    const current = documentValue({ data }, transform.field);
    setPath(data, names, transformed(current, transform, time));
  }
  const id = write.path.slice(write.path.lastIndexOf('/') + 1);
  return {
    id, path: write.path, data,
    createTime: document?.createTime ?? time, updateTime: time, version: (document?.version ?? 0) + 1,
  };
}

function transformed(current, transform, time) {
  if (transform.serverTimestamp) return time;
  if (transform.delete) return undefined;
  if ('increment' in transform) return typeof current === 'number' ? current + transform.increment : transform.increment;
  if ('maximum' in transform) return typeof current === 'number' ? Math.max(current, transform.maximum) : transform.maximum;
  if ('minimum' in transform) return typeof current === 'number' ? Math.min(current, transform.minimum) : transform.minimum;
  if ('arrayUnion' in transform) {
    const array = Array.isArray(current) ? [...current] : [];
    for (const element of transform.arrayUnion) if (!array.some((v) => valuesEqual(v, element))) array.push(element);
    return array;
  }
  if ('arrayRemove' in transform) {
    return (Array.isArray(current) ? current : []).filter((v) => !transform.arrayRemove.some((e) => valuesEqual(v, e)));
  }
  return current;
}

/** Now as the server writes times: RFC 3339 UTC with microseconds. */
export function nowText() {
  return Timestamp.now()._serverText();
}

/** An automatic document ID in the server's format: 20 base62 characters, 9 from the time, 11 random. */
export function autoId() {
  const digits = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let time = BigInt(Date.now()) * 1000n;
  let prefix = '';
  for (let i = 0; i < 9; i++) {
    prefix = digits[Number(time % 62n)] + prefix;
    time /= 62n;
  }
  let suffix = '';
  while (suffix.length < 11) {
    // Bytes of 248 and more are redrawn (248 = 4 × 62), so every digit is equally likely.
    for (const byte of crypto.getRandomValues(new Uint8Array(16))) {
      if (byte < 248 && suffix.length < 11) suffix += digits[byte % 62];
    }
  }
  return prefix + suffix;
}
