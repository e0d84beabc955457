// The server's query matcher (KuraModel's QueryMatcher, through fuzz/QueryFuzz.swift) against kura.js's local
// evaluation (web/sdk/query.js, matchesQuery) on the same queries and documents.
// Usage: node fuzz/query-diff.mjs RECORDS.jsonl — each line is {"query": body, "documents": [{path, data}],
// "matches": [bool]} as the query harness writes them when KURA_FUZZ_RECORD names a file (fuzz/diff.sh).
// Records kura.js cannot represent are skipped and counted: integers beyond ±2^53 (JavaScript numbers) and the
// createTime/updateTime fields (the harness's documents have no timestamps kura.js would read).
import { readFileSync } from 'node:fs';
import { matchesQuery } from '../web/sdk/query.js';

const [, , file] = process.argv;
let compared = 0;
let skipped = 0;
let documents = 0;
const disagreements = [];

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
  record.documents.forEach((d, i) => {
    documents++;
    const document = { path: d.path, id: d.path.split('/').at(-1), data: d.data };
    const js = matchesQuery(q, document);
    if (js !== record.matches[i]) disagreements.push({ query: body, document: d, server: record.matches[i], js });
  });
}
console.log(`${compared} queries, ${documents} documents compared (${skipped} queries skipped); ` +
  `${disagreements.length} disagreements`);
for (const d of disagreements.slice(0, 10)) console.log(JSON.stringify(d));
process.exit(disagreements.length ? 1 : 0);
