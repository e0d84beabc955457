// The Swift SDK's event stream parser (through fuzz/SseFuzz.swift) against kura.js's (web/sdk/sse.js) on the same
// byte streams, decoded as kura.js decodes them (TextDecoder, streaming).
// Usage: node fuzz/sse-diff.mjs RECORDS.jsonl — lines {"stream": base64, "messages": [{event, data, id}]} as the sse
// harness writes them when KURA_FUZZ_RECORD names a file (fuzz/diff.sh).
import { readFileSync } from 'node:fs';
import { EventStreamParser } from '../web/sdk/sse.js';

const [, , file] = process.argv;
let streams = 0;
const disagreements = [];
for (const line of readFileSync(file, 'utf8').split('\n')) {
  if (!line) continue;
  const record = JSON.parse(line);
  const bytes = Buffer.from(record.stream, 'base64');
  const parser = new EventStreamParser();
  const js = parser.feed(new TextDecoder().decode(bytes, { stream: true }));
  streams++;
  if (JSON.stringify(js) !== JSON.stringify(record.messages)) {
    disagreements.push({ stream: JSON.stringify(bytes.toString('latin1')), swift: record.messages, js });
  }
}
console.log(`${streams} streams compared; ${disagreements.length} disagreements`);
for (const d of disagreements.slice(0, 5)) console.log(JSON.stringify(d));
process.exit(disagreements.length ? 1 : 0);
