// The server's query matcher (KuraModel's QueryMatcher, through fuzz/QueryFuzz.swift) against kura.js's local
// evaluation (web/sdk/query.js, matchesQuery) on the same queries and documents; and the wire format: each recorded
// query body is KuraModel's encoding (`StructuredQuery.json`, what the Swift SDK sends), and kura.js must send the
// same body for the same query built with its own functions (`where`, `or`, `orderBy`, cursors, `limit`; field
// names as `FieldPath`s, so that its quoting is compared too) and `encodeQuery`. `select` and `pageToken` are left
// out of that comparison (kura.js builds neither).
// Usage: node fuzz/query-diff.mjs RECORDS.jsonl — each line is {"query": body, "documents": [{path, data}],
// "matches": [bool]} as the query harness writes them when KURA_FUZZ_RECORD names a file (fuzz/diff.sh).
// Records kura.js cannot represent are skipped and counted: integers beyond ±2^53 (JavaScript numbers) and the
// createTime/updateTime fields (the harness's documents have no timestamps kura.js would read).
import { readFileSync } from 'node:fs';
import {
  and, encodeQuery, endAt, endBefore, limit, matchesQuery, or, orderBy, startAfter, startAt, where,
} from '../web/sdk/query.js';
import { FieldPath, documentId, splitFieldPath } from '../web/sdk/values.js';

const [, , file] = process.argv;
let compared = 0;
let skipped = 0;
let documents = 0;
const disagreements = [];
const encodings = [];

// JSON with object keys sorted: member order carries no meaning on the wire.
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

// A field as kura.js's callers name it: the metadata fields by name (`documentId()` for the ID), data fields as
// `FieldPath`s of their names.
function field(text) {
  if (text === 'id') return documentId();
  if (text === 'createTime' || text === 'updateTime') return text;
  return new FieldPath(...splitFieldPath(text));
}

function constraint(entry) {
  if (entry.or) return or(...entry.or.map(constraint));
  if (entry.and) return and(...entry.and.map(constraint));
  return where(field(entry.field), entry.op, entry.value);
}

// The body kura.js sends for the query `body` says, built with its public functions.
function kuraJSBody(body) {
  const constraints = [
    ...(body.where ?? []).map(constraint),
    ...(body.orderBy ?? []).map((o) => orderBy(field(o.field), o.direction)),
  ];
  if (body.limit !== undefined) constraints.push(limit(body.limit));
  for (const [kind, make] of [['startAt', startAt], ['startAfter', startAfter], ['endAt', endAt], ['endBefore', endBefore]]) {
    if (body[kind]) constraints.push(make(...body[kind]));
  }
  let q = { source: body.collection !== undefined ? { collection: body.collection } : { collectionGroup: body.collectionGroup }, where: [], orderBy: [] };
  for (const c of constraints) q = c._apply(q);
  return encodeQuery(q).body;
}

// Big integers are marked while parsing: JSON.parse would round them silently.
function unsafeIntegers(text) {
  return /(?<![\d.eE+-])-?\d{16,}(?![\d.eE])/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, '""'));
}

for (const line of readFileSync(file, 'utf8').split('\n')) {
  if (!line) continue;
  if (unsafeIntegers(line)) { skipped++; continue; }
  const record = JSON.parse(line);
  const body = record.query;
  const leaves = (entries) => entries.flatMap((e) => (e.or ? leaves(e.or) : e.and ? leaves(e.and) : [e]));
  const fields = [...leaves(body.where ?? []), ...(body.orderBy ?? [])].map((f) => f.field);
  if (fields.some((f) => f === 'createTime' || f === 'updateTime')) { skipped++; continue; }
  const q = {
    source: body.collection !== undefined ? { collection: body.collection } : { collectionGroup: body.collectionGroup },
    where: body.where ?? [],
    orderBy: (body.orderBy ?? []).map((o) => ({ field: o.field, direction: o.direction ?? 'asc' })),
  };
  for (const [kind, inclusive] of [['startAt', true], ['startAfter', false]]) {
    if (body[kind]) q.start = { values: body[kind], inclusive };
  }
  for (const [kind, inclusive] of [['endAt', true], ['endBefore', false]]) {
    if (body[kind]) q.end = { values: body[kind], inclusive };
  }
  compared++;
  const sent = { ...body };
  delete sent.select;
  delete sent.pageToken;
  let js;
  try {
    js = kuraJSBody(body);
  } catch (error) {
    js = `throws ${error.message}`;
  }
  if (typeof js === 'string' || canonical(js) !== canonical(sent)) encodings.push({ swift: sent, js });
  record.documents.forEach((d, i) => {
    documents++;
    const document = { path: d.path, id: d.path.split('/').at(-1), data: d.data };
    const js = matchesQuery(q, document);
    if (js !== record.matches[i]) disagreements.push({ query: body, document: d, server: record.matches[i], js });
  });
}
console.log(`${compared} queries, ${documents} documents compared (${skipped} queries skipped); ` +
  `${disagreements.length} disagreements; ${encodings.length} query bodies encoded otherwise by kura.js`);
for (const d of disagreements.slice(0, 10)) console.log(JSON.stringify(d));
for (const e of encodings.slice(0, 10)) console.log(JSON.stringify(e));
process.exit(disagreements.length || encodings.length ? 1 : 0);
