// Queries: the constraint functions (`where`, `orderBy`, `limit`, `limitToLast`, cursors), their encoding for
// POST /api/query, and the same query run locally over cached documents (the server's semantics, docs/api.md).

import { invalidArgument } from './errors.js';
import { DocumentSnapshot, Query } from './references.js';
import { compareValues, documentValue, fieldText, rank, splitFieldPath, toJSONValue, valuesEqual } from './values.js';

const OPERATORS = ['<', '<=', '==', '!=', '>=', '>', 'array-contains', 'in', 'not-in', 'array-contains-any'];
const INEQUALITIES = ['<', '<=', '>', '>=', '!=', 'not-in'];

/** A query constraint, made by the functions below and applied by `query`. */
export class QueryConstraint {
  constructor(type, apply) {
    this.type = type;
    this._apply = apply;
  }
}

/** `query(collectionRef, where(…), orderBy(…), limit(…))`: a new query with the constraints added. */
export function query(base, ...constraints) {
  let q = structuredCloneQuery(base._q);
  for (const constraint of constraints.flat()) {
    if (!(constraint instanceof QueryConstraint)) throw invalidArgument('query() takes constraints (where, orderBy…)');
    q = constraint._apply(q, base);
  }
  return new Query(base.firestore, q, base.converter);
}

function structuredCloneQuery(q) {
  return { ...q, where: [...(q.where ?? [])], orderBy: [...(q.orderBy ?? [])] };
}

/** A filter constraint (`where`, `or`, `and`): `_filter` is its `where` entry as the server reads it. */
class QueryFilterConstraint extends QueryConstraint {
  constructor(type, filter) {
    super(type, (q) => ({ ...q, where: [...q.where, filter] }));
    this._filter = filter;
  }
}

/** A field filter, made by `where`. */
export class QueryFieldFilterConstraint extends QueryFilterConstraint {}

/** An `or` or `and` of filters, made by `or(…)` and `and(…)`. */
export class QueryCompositeFilterConstraint extends QueryFilterConstraint {}

/** A filter: `where('done', '==', false)`; operators as Firestore's. */
export function where(field, op, value) {
  if (!OPERATORS.includes(op)) throw invalidArgument(`unknown operator ${op}`);
  const text = fieldText(field);
  const operand = toJSONValue(value);
  return new QueryFieldFilterConstraint('where', { field: text, op, value: operand });
}

function composite(type, constraints) {
  if (!constraints.length) throw invalidArgument(`${type}() needs at least one filter`);
  for (const constraint of constraints) {
    if (!(constraint instanceof QueryFilterConstraint)) throw invalidArgument(`${type}() takes where(), or() and and() filters`);
  }
  return new QueryCompositeFilterConstraint(type, { [type]: constraints.map((c) => c._filter) });
}

/** Matches documents that match any of the filters: `or(where('a', '==', 1), where('b', '==', 2))`. */
export const or = (...filters) => composite('or', filters);
/** Matches documents that match every filter (to nest inside `or`). */
export const and = (...filters) => composite('and', filters);

/** Sorts by a field, `'asc'` (default) or `'desc'`. */
export function orderBy(field, direction = 'asc') {
  if (direction !== 'asc' && direction !== 'desc') throw invalidArgument('orderBy direction is asc or desc');
  const text = fieldText(field);
  return new QueryConstraint('orderBy', (q) => ({ ...q, orderBy: [...q.orderBy, { field: text, direction }] }));
}

/** At most `n` documents, the first in the query's order. */
export function limit(n) {
  checkLimit(n);
  return new QueryConstraint('limit', (q) => ({ ...q, limit: n, limitType: 'first' }));
}

/** At most `n` documents, the last in the query's order (needs an orderBy). */
export function limitToLast(n) {
  checkLimit(n);
  return new QueryConstraint('limitToLast', (q) => ({ ...q, limit: n, limitType: 'last' }));
}

function checkLimit(n) {
  if (!Number.isInteger(n) || n < 1) throw invalidArgument('a limit is a positive integer');
}

function cursor(kind, inclusive, values) {
  return new QueryConstraint(kind, (q) => ({ ...q, [kind.startsWith('start') ? 'start' : 'end']: { values, inclusive } }));
}

/** Starts at the given values of the orderBy fields, or at a document snapshot. */
export const startAt = (...values) => cursor('startAt', true, values);
/** Starts after the given values, or after a document snapshot. */
export const startAfter = (...values) => cursor('startAfter', false, values);
/** Ends at the given values, or at a document snapshot. */
export const endAt = (...values) => cursor('endAt', true, values);
/** Ends before the given values, or before a document snapshot. */
export const endBefore = (...values) => cursor('endBefore', false, values);

/** The field filters of `where` entries, inside `or`/`and` too. */
function leaves(entries) {
  return entries.flatMap((f) => (f.or ? leaves(f.or) : f.and ? leaves(f.and) : [f]));
}

/** Field-name order of implicit sort keys: names compared one by one by UTF-8 bytes, a prefix first. */
function compareFieldNames(a, b) {
  const x = a === 'createTime' || a === 'updateTime' ? [a] : splitFieldPath(a);
  const y = b === 'createTime' || b === 'updateTime' ? [b] : splitFieldPath(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const order = compareValues(x[i], y[i]);
    if (order) return order;
  }
  return x.length - y.length;
}

/**
 * The sort keys the server uses: the orderBy fields, then the inequality fields not ordered on (by field name, in
 * the last orderBy's direction), then `id`.
 */
export function effectiveOrders(q) {
  const orders = [...q.orderBy];
  const direction = orders.at(-1)?.direction ?? 'asc';
  const implicit = [];
  for (const f of leaves(q.where)) {
    if (!INEQUALITIES.includes(f.op) || f.field === 'id' || f.field === '__name__') continue;
    if (!orders.some((o) => o.field === f.field) && !implicit.includes(f.field)) implicit.push(f.field);
  }
  for (const field of implicit.sort(compareFieldNames)) orders.push({ field, direction });
  if (!orders.some((o) => o.field === 'id')) {
    orders.push({ field: 'id', direction: orders.at(-1)?.direction ?? 'asc' });
  }
  return orders;
}

function cursorValues(q, values) {
  if (values.length === 1 && values[0] instanceof DocumentSnapshot) {
    const snapshot = values[0];
    if (!snapshot.exists()) throw invalidArgument('a cursor document must exist');
    // Every sort key, the ID included, so the position is exact even across ties.
    return effectiveOrders(q).map((o) => documentValue(snapshot._document, o.field) ?? null);
  }
  return values.map(toJSONValue);
}

/** Cursors with document snapshots resolved to values. */
function resolved(q) {
  const out = { ...q };
  if (q.start) out.start = { ...q.start, values: cursorValues(q, q.start.values) };
  if (q.end) out.end = { ...q.end, values: cursorValues(q, q.end.values) };
  return out;
}

/**
 * The JSON for POST /api/query (and listen targets). `limitToLast` is sent as the reversed query (directions
 * flipped, cursors swapped); `reversed: true` says to reverse the answer.
 */
export function encodeQuery(q, { pageLimit } = {}) {
  q = resolved(q);
  const body = { ...q.source };
  if (q.where.length) body.where = q.where;
  let orders = q.orderBy;
  let start = q.start;
  let end = q.end;
  const reversed = q.limitType === 'last';
  if (reversed) {
    if (!q.orderBy.length) throw invalidArgument('limitToLast needs an orderBy');
    orders = effectiveOrders(q).map((o) => ({ field: o.field, direction: o.direction === 'asc' ? 'desc' : 'asc' }));
    [start, end] = [q.end, q.start];
  }
  if (orders.length) body.orderBy = orders.map((o) => ({ field: o.field, direction: o.direction }));
  const limitValue = pageLimit ?? q.limit;
  if (limitValue != null) body.limit = limitValue;
  if (start) body[start.inclusive ? 'startAt' : 'startAfter'] = start.values;
  if (end) body[end.inclusive ? 'endAt' : 'endBefore'] = end.values;
  return { body, reversed };
}

// Local evaluation

/** Whether the document at `path` lies in the query's collection (or collection group). */
export function inSource(q, path) {
  const segments = path.split('/');
  if (q.source.collection !== undefined) return segments.slice(0, -1).join('/') === q.source.collection;
  return segments.length >= 2 && segments.at(-2) === q.source.collectionGroup;
}

function filterMatches(value, op, operand) {
  switch (op) {
    case '==': return value !== undefined && valuesEqual(value, operand);
    case '!=': return value !== undefined && !valuesEqual(value, operand);
    case '<': case '<=': case '>': case '>=': {
      if (value === undefined || rank(value) !== rank(operand)) return false;
      const order = compareValues(value, operand);
      return op === '<' ? order < 0 : op === '<=' ? order <= 0 : op === '>' ? order > 0 : order >= 0;
    }
    case 'in': return value !== undefined && operand.some((v) => valuesEqual(value, v));
    case 'not-in': return value !== undefined && !operand.some((v) => valuesEqual(value, v));
    case 'array-contains': return Array.isArray(value) && value.some((v) => valuesEqual(v, operand));
    case 'array-contains-any': return Array.isArray(value) && value.some((v) => operand.some((o) => valuesEqual(v, o)));
    default: return false;
  }
}

/** A `where` entry on a document: a field filter, or `{or: […]}` / `{and: […]}` of entries. */
function conditionMatches(document, filter) {
  if (filter.or) return filter.or.some((f) => conditionMatches(document, f));
  if (filter.and) return filter.and.every((f) => conditionMatches(document, f));
  return filterMatches(documentValue(document, filter.field), filter.op, filter.value);
}

function position(document, values, orders) {
  for (let i = 0; i < Math.min(values.length, orders.length); i++) {
    const order = compareValues(documentValue(document, orders[i].field) ?? null, values[i]);
    if (order) return orders[i].direction === 'desc' ? -order : order;
  }
  return 0;
}

/** Whether a stored document belongs to the query's results (before the limit). */
export function matchesQuery(q, document) {
  if (!inSource(q, document.path)) return false;
  for (const filter of q.where) if (!conditionMatches(document, filter)) return false;
  const orders = effectiveOrders(q);
  if (orders.some((o) => documentValue(document, o.field) === undefined)) return false;
  if (q.start) {
    const order = position(document, q.start.values, orders);
    if (order < 0 || (order === 0 && !q.start.inclusive)) return false;
  }
  if (q.end) {
    const order = position(document, q.end.values, orders);
    if (order > 0 || (order === 0 && !q.end.inclusive)) return false;
  }
  return true;
}

/** The query run over `documents`: matching, sorted, limited (limitToLast keeps the last ones). */
export function runQuery(q, documents) {
  q = resolved(q);
  const orders = effectiveOrders(q);
  const result = documents.filter((d) => matchesQuery(q, d));
  result.sort((a, b) => {
    for (const o of orders) {
      const order = compareValues(documentValue(a, o.field) ?? null, documentValue(b, o.field) ?? null);
      if (order) return o.direction === 'desc' ? -order : order;
    }
    return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
  });
  if (q.limit != null && result.length > q.limit) {
    return q.limitType === 'last' ? result.slice(result.length - q.limit) : result.slice(0, q.limit);
  }
  return result;
}
