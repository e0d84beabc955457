// Page-side steps for suite_offline.py (the page's app has persistence: 'indexeddb').

const ref = (t, collection, id) => t.kura.doc(t.db(), 'users', t.auth().currentUser.uid, collection, id);

export async function prepare(t) {
  const { kura } = t;
  t.state.writeErrors = [];
  kura.onWriteError(t.db(), ({ error, writes }) => t.state.writeErrors.push(`${error.code} ${writes.map((w) => w.op).join(',')}`));
  await kura.setDoc(ref(t, 'todos', 'a'), { title: 'eggs', rank: 1 });
  await kura.setDoc(ref(t, 'todos', 'b'), { title: 'milk', rank: 2 });
  await kura.setDoc(ref(t, 'todos', 'gone'), { title: 'to be deleted elsewhere', rank: 9 });
  const online = await kura.getDoc(ref(t, 'todos', 'a'));
  t.equal('online reads come from the server', online.metadata.fromCache, false);
  const all = await kura.getDocs(kura.query(kura.collection(t.db(), 'users', t.auth().currentUser.uid, 'todos'), kura.orderBy('rank')));
  t.equal('online query', all.docs.map((d) => d.id), ['a', 'b', 'gone']);
}

export async function readOffline(t) {
  const { kura } = t;
  const a = await kura.getDoc(ref(t, 'todos', 'a'));
  t.equal('getDoc offline: from the cache', [a.metadata.fromCache, a.data()], [true, { title: 'eggs', rank: 1 }]);
  const todos = kura.collection(t.db(), 'users', t.auth().currentUser.uid, 'todos');
  const all = await kura.getDocs(kura.query(todos, kura.where('rank', '<=', 2), kura.orderBy('rank', 'desc')));
  t.equal('getDocs offline: the cache answers the query', [all.metadata.fromCache, all.docs.map((d) => d.id)], [true, ['b', 'a']]);
  await t.rejects('a document the cache never saw', kura.getDoc(ref(t, 'todos', 'unknown')), 'unavailable');
}

export async function writeOffline(t) {
  const { kura } = t;
  const started = Date.now();
  await kura.setDoc(ref(t, 'todos', 'c'), { title: 'tea', rank: 0 });
  await kura.updateDoc(ref(t, 'todos', 'a'), { title: 'eggs (6)', count: kura.increment(6) });
  // Refused when replayed: another user's data, and an update of a document deleted meanwhile.
  await kura.setDoc(kura.doc(t.db(), 'users', 'someone-else', 'todos', 'x'), { title: 'not mine' });
  await kura.updateDoc(ref(t, 'todos', 'gone'), { title: 'edited offline' });
  t.check('offline writes return once queued', Date.now() - started < 5000, `${Date.now() - started} ms`);
  t.equal('four writes wait in the queue', await kura.getPendingWriteCount(t.db()), 4);
  const c = await kura.getDoc(ref(t, 'todos', 'c'));
  t.equal('a queued write is read back at once', [c.data(), c.metadata.hasPendingWrites, c.metadata.fromCache],
    [{ title: 'tea', rank: 0 }, true, true]);
  const a = await kura.getDoc(ref(t, 'todos', 'a'));
  t.equal('a queued update applies locally', a.data(), { title: 'eggs (6)', rank: 1, count: 6 });
}

export async function afterReconnect(t) {
  const { kura } = t;
  await kura.waitForPendingWrites(t.db());
  t.equal('the queue is empty', await kura.getPendingWriteCount(t.db()), 0);
  t.equal('refused writes surfaced as error events, in order', t.state.writeErrors,
    ['permission-denied set', 'not-found update']);
  const a = await kura.getDoc(ref(t, 'todos', 'a'));
  t.equal('the server has the replayed update', [a.metadata.fromCache, a.metadata.hasPendingWrites, a.data()],
    [false, false, { title: 'eggs (6)', rank: 1, count: 6 }]);
}

export function pendingCount(t) {
  return t.kura.getPendingWriteCount(t.db());
}

export async function queueForReload(t) {
  await t.kura.setDoc(ref(t, 'todos', 'r'), { title: 'written before the reload', rank: 5 });
  t.equal('queued while the server is blocked', await t.kura.getPendingWriteCount(t.db()), 1);
}

export async function afterReload(t) {
  const { kura } = t;
  t.equal('the queue survived the reload', await kura.getPendingWriteCount(t.db()), 1);
  const r = await kura.getDoc(ref(t, 'todos', 'r'));
  t.equal('the queued write is shown after the reload', [r.metadata.hasPendingWrites, r.get('title')],
    [true, 'written before the reload']);
  const b = await kura.getDoc(ref(t, 'todos', 'b'));
  t.equal('the cache survived the reload', [b.metadata.fromCache, b.get('title')], [true, 'milk']);
}

export async function drained(t) {
  await t.kura.waitForPendingWrites(t.db());
  return (await t.kura.getPendingWriteCount(t.db())) === 0;
}

export function hubStatistics(t) {
  return { ...t.db()._hub.statistics };
}

export async function afterExpiry(t) {
  const { kura } = t;
  await new Promise((resolve) => setTimeout(resolve, 3200));
  const a = await kura.getDoc(ref(t, 'todos', 'a'));
  t.equal('a cached read after the token expired offline', [a.metadata.fromCache, a.get('title')], [true, 'eggs']);
  await kura.setDoc(ref(t, 'todos', 'late'), { title: 'queued after expiry' });
  t.equal('a write queued after the token expired offline', await kura.getPendingWriteCount(t.db()), 1);
  await t.rejects('an uncached read is unavailable', kura.getDoc(ref(t, 'todos', 'never')), 'unavailable');
}

export async function expiredWithoutPersistence(t) {
  const { kura } = t;
  await new Promise((resolve) => setTimeout(resolve, 3200));
  await t.rejects('without persistence, a read whose token cannot be refreshed offline is unavailable',
    kura.getDoc(ref(t, 'todos', 'a')), 'unavailable');
}

/** What a query snapshot says about pending writes: the snapshot's flag and each document's own. */
function pendingOf(snapshot) {
  return {
    ids: snapshot.docs.map((d) => d.id),
    pending: snapshot.metadata.hasPendingWrites,
    fromCache: snapshot.metadata.fromCache,
    docs: Object.fromEntries(snapshot.docs.map((d) => [d.id, d.metadata.hasPendingWrites])),
    changes: Object.fromEntries(snapshot.docChanges().map((c) => [c.doc.id, c.doc.metadata.hasPendingWrites])),
  };
}

const todos = (t) => t.kura.query(t.kura.collection(t.db(), 'users', t.auth().currentUser.uid, 'todos'),
  t.kura.orderBy('rank'));

/** A query listener (with metadata changes) recording `pendingOf` each snapshot. */
export function listenPending(t, name) {
  t.state.listeners ??= {};
  const log = { snapshots: [], errors: [] };
  t.state.listeners[name] = log;
  log.stop = t.kura.onSnapshot(todos(t), { includeMetadataChanges: true }, (snapshot) => log.snapshots.push(pendingOf(snapshot)),
    (error) => log.errors.push(error.code));
}

export function lastPending(t, name) {
  return t.state.listeners[name].snapshots.at(-1) ?? null;
}

/** With the server out of reach: one document is written; only it carries hasPendingWrites. */
export async function pendingPerDocument(t, name) {
  const { kura } = t;
  await kura.updateDoc(ref(t, 'todos', 'a'), { title: 'eggs (12)' });
  const last = t.state.listeners[name].snapshots.at(-1);
  t.equal('listener: the snapshot has pending writes', [last.pending, last.ids], [true, ['a', 'b', 'gone']]);
  t.equal('listener: only the written document has pending writes', last.docs, { a: true, b: false, gone: false });
  t.equal('listener: the change carries its document\'s flag', last.changes, { a: true });
  const all = pendingOf(await kura.getDocs(todos(t)));
  t.equal('getDocs from the cache: the snapshot has pending writes', [all.pending, all.fromCache], [true, true]);
  t.equal('getDocs from the cache: only the written document has pending writes', all.docs,
    { a: true, b: false, gone: false });
}

