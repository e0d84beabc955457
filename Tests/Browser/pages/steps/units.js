// Page-side steps for suite_units.py: pieces of kura.js checked directly in the browser, and the local query
// engine (offline reads) checked against the server on random data.

import { EventStreamParser } from '/sdk/sse.js';
import { diff } from '/sdk/listener-views.js';
import { serverError } from '/sdk/errors.js';

/** A small deterministic generator (mulberry32), so a failure can be replayed from its seed. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export function eventStreamParser(t) {
  const text = 'event: connected\r\ndata: {"a":1}\r\n\r\n: heartbeat\n\nid: 7\n\nevent: changes\nid: 8\ndata: x\ndata: y\r\rdata:no space\n\n';
  const expected = [
    { event: 'connected', data: '{"a":1}', id: null },
    { event: null, data: '', id: '7' },
    { event: 'changes', data: 'x\ny', id: '8' },
    { event: 'message', data: 'no space', id: null },
  ];
  const whole = new EventStreamParser().feed(text);
  t.equal('SSE: one chunk', whole, expected);
  const next = random(1);
  for (let round = 0; round < 50; round++) {
    const parser = new EventStreamParser();
    const out = [];
    let rest = text;
    while (rest) {
      const cut = 1 + Math.floor(next() * 5);
      out.push(...parser.feed(rest.slice(0, cut)));
      rest = rest.slice(cut);
    }
    if (JSON.stringify(out) !== JSON.stringify(expected)) {
      t.equal(`SSE: random chunks (round ${round})`, out, expected);
      return;
    }
  }
  t.check('SSE: the same messages from 50 random chunkings (CR, LF and CRLF split anywhere)', true);
}

export function docChangesDiff(t) {
  const next = random(2);
  const doc = (id, version) => ({ id, path: `c/${id}`, version, data: {} });
  for (let round = 0; round < 300; round++) {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'].filter(() => next() < 0.6);
    const old = ids.sort(() => next() - 0.5).map((id) => doc(id, 1));
    const now = ['a', 'b', 'c', 'd', 'e', 'f'].filter(() => next() < 0.6).sort(() => next() - 0.5)
      .map((id) => doc(id, next() < 0.3 ? 2 : 1));
    const view = [...old];
    for (const change of diff(old, now)) {
      if (change.oldIndex >= 0) view.splice(change.oldIndex, 1);
      if (change.newIndex >= 0) view.splice(change.newIndex, 0, change.document);
    }
    const same = JSON.stringify(view.map((d) => [d.id, d.version])) === JSON.stringify(now.map((d) => [d.id, d.version]));
    if (!same) {
      t.equal(`docChanges applied in order rebuild the new view (round ${round})`, view.map((d) => d.id), now.map((d) => d.id));
      return;
    }
  }
  t.check('docChanges applied one after the other rebuild the new view (300 random cases)', true);
}

/** Random documents, then random queries run by the server and by the local engine over the cache. */
export async function localEngineAgrees(t, seed) {
  const { kura } = t;
  const db = t.db();
  const next = random(seed);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const values = [null, false, true, -1, 0, 0.5, 1, 2, 10, 'a', 'B', 'b', 'ab', 'é', [1], [1, 2], ['a'], { x: 1 }];
  const items = kura.collection(db, 'users', t.auth().currentUser.uid, 'items');
  const batch = kura.writeBatch(db);
  for (let i = 0; i < 40; i++) {
    const data = {};
    for (const field of ['f', 'g', 'tags']) if (next() < 0.8) data[field] = field === 'tags' ? [pick(values), pick(values)] : pick(values);
    batch.set(kura.doc(items, `d${String(i).padStart(2, '0')}`), data);
  }
  await batch.commit();
  const operators = ['==', '!=', '<', '<=', '>', '>=', 'in', 'not-in', 'array-contains', 'array-contains-any'];
  let compared = 0;
  for (let round = 0; round < 60; round++) {
    const constraints = [];
    const op = pick(operators);
    const field = op.startsWith('array') ? 'tags' : pick(['f', 'g']);
    const operand = ['in', 'not-in', 'array-contains-any'].includes(op) ? [pick(values), pick(values)] : pick(values);
    if (next() < 0.8) constraints.push(kura.where(field, op, operand));
    const inequality = ['!=', '<', '<=', '>', '>=', 'not-in'].includes(op) && constraints.length;
    if (inequality) constraints.push(kura.orderBy(field, pick(['asc', 'desc'])));
    else if (next() < 0.6) constraints.push(kura.orderBy(pick(['f', 'g']), pick(['asc', 'desc'])));
    if (next() < 0.5) constraints.push(kura.limit(1 + Math.floor(next() * 10)));
    const q = kura.query(items, ...constraints);
    let server;
    try {
      server = await kura.getDocsFromServer(q);
    } catch (error) {
      if (error.code === 'invalid-argument') continue; // e.g. not-in with null: the server refuses, fine
      throw error;
    }
    const local = await kura.getDocsFromCache(q);
    const [s, l] = [server.docs.map((d) => d.id), local.docs.map((d) => d.id)];
    if (JSON.stringify(s) !== JSON.stringify(l)) {
      t.equal(`seed ${seed} round ${round}: ${field} ${op} ${JSON.stringify(operand)} ${JSON.stringify(q._q.orderBy)} limit ${q._q.limit}`, l, s);
      return;
    }
    compared++;
  }
  t.check(`the local engine answered ${compared} random queries exactly as the server (seed ${seed})`, compared > 30, compared);
}

/** The server codes a data call (documents, queries, listeners) can answer, as the Firestore codes apps test for. */
export function dataErrorCodes(t) {
  const expected = {
    PERMISSION_DENIED: 'permission-denied',
    EMAIL_NOT_VERIFIED: 'permission-denied',
    NOT_FOUND: 'not-found',
    ALREADY_EXISTS: 'already-exists',
    FAILED_PRECONDITION: 'failed-precondition',
    ABORTED: 'aborted',
    INVALID_QUERY: 'invalid-argument',
    INVALID_PATH: 'invalid-argument',
    DOCUMENT_TOO_LARGE: 'invalid-argument',
    UNAUTHENTICATED: 'unauthenticated',
    INVALID_ID_TOKEN: 'unauthenticated',
    TOKEN_EXPIRED: 'unauthenticated',
    RESOURCE_EXHAUSTED: 'resource-exhausted',
    UNAVAILABLE: 'unavailable',
  };
  const actual = Object.fromEntries(Object.keys(expected).map((code) => [code, serverError(code, 'm', 400).code]));
  t.equal('data errors: each server code becomes the Firestore code', actual, expected);
}
