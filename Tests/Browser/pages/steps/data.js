// Page-side steps for suite_data.py.

export async function documentCalls(t) {
  const { kura } = t;
  const db = t.db();
  const uid = t.auth().currentUser.uid;
  const todos = kura.collection(db, 'users', uid, 'todos');
  t.equal('collection() path and id', [todos.path, todos.id, todos.parent.path], [`users/${uid}/todos`, 'todos', `users/${uid}`]);
  const ref = kura.doc(todos, 'a');
  t.equal('doc() path', ref.path, `users/${uid}/todos/a`);
  t.equal('doc(db, path) equals doc(collection, id)', kura.refEqual(ref, kura.doc(db, `users/${uid}/todos/a`)), true);
  const missing = await kura.getDoc(ref);
  t.equal('a missing document: exists() false, data() undefined', [missing.exists(), missing.data()], [false, undefined]);
  await kura.setDoc(ref, { title: 'eggs', n: 1, tags: ['a', 'b'], address: { city: 'Osaka' } });
  let snapshot = await kura.getDoc(ref);
  t.equal('setDoc then getDoc', snapshot.data(), { title: 'eggs', n: 1, tags: ['a', 'b'], address: { city: 'Osaka' } });
  t.equal('version 1, metadata from the server', [snapshot.version, snapshot.metadata.fromCache], [1, false]);
  t.equal('get(dotted path)', snapshot.get('address.city'), 'Osaka');
  await kura.setDoc(ref, { address: { zip: '600' }, extra: true }, { merge: true });
  await kura.updateDoc(ref, { 'address.city': 'Kyoto', n: kura.increment(11), tags: kura.arrayUnion('c'), gone: 1 });
  await kura.updateDoc(ref, 'tags', kura.arrayRemove('a'), 'gone', kura.deleteField());
  snapshot = await kura.getDoc(ref);
  t.equal('merge, dotted update, increment, arrayUnion/Remove, deleteField',
    snapshot.data(), { title: 'eggs', n: 12, tags: ['b', 'c'], address: { city: 'Kyoto', zip: '600' }, extra: true });
  t.equal('version counts writes', snapshot.version, 4);
  const added = await kura.addDoc(todos, { title: 'milk', at: kura.serverTimestamp() });
  t.check('addDoc: a 20-character automatic ID', /^[0-9A-Za-z]{20}$/.test(added.id), added.id);
  const milk = await kura.getDoc(added);
  t.check('serverTimestamp: reads back as a Timestamp', milk.get('at') instanceof kura.Timestamp, milk.get('at'));
  await kura.setDoc(kura.doc(todos, 'dated'), { when: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)) });
  t.equal('a Date is stored as the server\'s time text and reads back as a Timestamp',
    (await kura.getDoc(kura.doc(todos, 'dated'))).get('when').toDate().toISOString(), '2026-01-02T03:04:05.678Z');
  await kura.deleteDoc(added);
  t.equal('deleteDoc', (await kura.getDoc(added)).exists(), false);
  await kura.deleteDoc(added);
  t.check('deleting a missing document succeeds', true);
  const converted = kura.doc(todos, 'typed').withConverter({
    toFirestore: (todo) => ({ title: todo.title.toUpperCase() }),
    fromFirestore: (snap) => ({ id: snap.id, title: snap.data().title }),
  });
  await kura.setDoc(converted, { title: 'tea' });
  t.equal('withConverter', (await kura.getDoc(converted)).data(), { id: 'typed', title: 'TEA' });
  return ref.path;
}

export async function errorCodes(t) {
  const { kura } = t;
  const db = t.db();
  const uid = t.auth().currentUser.uid;
  await t.rejects('updateDoc of a missing document', kura.updateDoc(kura.doc(db, 'users', uid, 'todos', 'nope'), { a: 1 }),
    'not-found');
  await t.rejects('reading another user\'s document', kura.getDoc(kura.doc(db, 'users', 'someone', 'todos', 'x')),
    'permission-denied');
  await t.rejects('writing outside the rules', kura.setDoc(kura.doc(db, 'elsewhere', 'x'), { a: 1 }), 'permission-denied');
  await t.rejects('an invalid query', kura.getDocs(kura.query(kura.collection(db, 'users', uid, 'todos'),
    kura.where('a', 'not-in', [1]), kura.where('b', '!=', 2))), 'invalid-argument');
  try {
    kura.doc(db, 'users', uid, 'todos');
    t.check('doc() with a collection path throws', false, 'no error');
  } catch (error) {
    t.equal('doc() with a collection path throws', error.code, 'invalid-argument');
  }
  await t.rejects('undefined field values are refused', kura.setDoc(kura.doc(db, 'users', uid, 'x', 'y'), { a: undefined }),
    'invalid-argument');
  const error = await kura.getDoc(kura.doc(db, 'users', 'someone', 'todos', 'x')).catch((e) => e);
  t.equal('errors carry the server code and status', [error.name, error.serverCode, error.status],
    ['FirebaseError', 'PERMISSION_DENIED', 403]);
  t.check('getAuth() and getDatabase() without an app use the default app',
    kura.getAuth() === t.auth() && kura.getDatabase() === t.db() && kura.getFirestore() === t.db());
  const offline = kura.initializeApp({ url: 'http://127.0.0.1:9' }, 'unreachable');
  await t.rejects('an unreachable server is unavailable', kura.getDoc(kura.doc(kura.getDatabase(offline), 'a/b')),
    'unavailable');
}

export async function queries(t) {
  const { kura } = t;
  const db = t.db();
  const uid = t.auth().currentUser.uid;
  const items = kura.collection(db, 'users', uid, 'items');
  const batch = kura.writeBatch(db);
  const rows = [
    ['a', { rank: 1, color: 'red', tags: ['x'], size: 10 }],
    ['b', { rank: 2, color: 'blue', tags: ['y'], size: 20 }],
    ['c', { rank: 3, color: 'red', tags: ['x', 'y'], size: 30 }],
    ['d', { rank: 4, color: 'green', tags: [], size: 40 }],
    ['e', { rank: 5, color: 'blue', tags: ['z'] }],
  ];
  for (const [id, data] of rows) batch.set(kura.doc(items, id), data);
  await batch.commit();
  const ids = async (...constraints) => (await kura.getDocs(kura.query(items, ...constraints))).docs.map((d) => d.id);
  const all = await kura.getDocs(items);
  t.equal('getDocs(collection)', [all.size, all.empty, all.docs.map((d) => d.id)], [5, false, ['a', 'b', 'c', 'd', 'e']]);
  t.equal('where ==', await ids(kura.where('color', '==', 'red')), ['a', 'c']);
  t.equal('where != (skips missing fields)', await ids(kura.where('size', '!=', 20)), ['a', 'c', 'd']);
  t.equal('where >= with orderBy desc', await ids(kura.where('rank', '>=', 3), kura.orderBy('rank', 'desc')), ['e', 'd', 'c']);
  t.equal('where in', await ids(kura.where('color', 'in', ['green', 'blue'])), ['b', 'd', 'e']);
  t.equal('where not-in (ordered by its field)', await ids(kura.where('color', 'not-in', ['red'])), ['b', 'e', 'd']);
  t.equal('array-contains', await ids(kura.where('tags', 'array-contains', 'x')), ['a', 'c']);
  t.equal('array-contains-any', await ids(kura.where('tags', 'array-contains-any', ['y', 'z'])), ['b', 'c', 'e']);
  t.equal('documentId()', await ids(kura.where(kura.documentId(), '==', 'd')), ['d']);
  t.equal('orderBy + limit', await ids(kura.orderBy('rank', 'desc'), kura.limit(2)), ['e', 'd']);
  t.equal('limitToLast', await ids(kura.orderBy('rank'), kura.limitToLast(2)), ['d', 'e']);
  t.equal('startAt', await ids(kura.orderBy('rank'), kura.startAt(4)), ['d', 'e']);
  t.equal('startAfter', await ids(kura.orderBy('rank'), kura.startAfter(4)), ['e']);
  t.equal('endAt', await ids(kura.orderBy('rank'), kura.endAt(2)), ['a', 'b']);
  t.equal('endBefore', await ids(kura.orderBy('rank'), kura.endBefore(2)), ['a']);
  t.equal('limitToLast with cursors', await ids(kura.orderBy('rank'), kura.startAfter(1), kura.endBefore(5), kura.limitToLast(2)),
    ['c', 'd']);
  const first = await kura.getDocs(kura.query(items, kura.orderBy('color'), kura.limit(2)));
  t.equal('a page', first.docs.map((d) => d.id), ['b', 'e']);
  t.equal('startAfter(a document snapshot) continues exactly across ties',
    await ids(kura.orderBy('color'), kura.startAfter(first.docs.at(-1)), kura.limit(2)), ['d', 'a']);
  t.equal('getCountFromServer', (await kura.getCountFromServer(kura.query(items, kura.where('color', '==', 'blue')))).data().count, 2);
  t.equal('getCountFromServer(collection)', (await kura.getCountFromServer(items)).data().count, 5);
  await kura.setDoc(kura.doc(db, 'users', uid, 'more', 'm', 'items', 'f'), { rank: 6 });
  const group = await kura.getDocs(kura.query(kura.collectionGroup(db, 'items'), kura.where('rank', '>=', 5)));
  t.equal('collectionGroup', group.docs.map((d) => d.ref.path), [`users/${uid}/items/e`, `users/${uid}/more/m/items/f`]);
  const changes = all.docChanges();
  t.equal('docChanges() of a read: all added', changes.map((c) => `${c.type}${c.newIndex}`), ['added0', 'added1', 'added2', 'added3', 'added4']);
}

export async function batchesAndTransactions(t) {
  const { kura } = t;
  const db = t.db();
  const uid = t.auth().currentUser.uid;
  const counter = kura.doc(db, 'users', uid, 'counters', 'c');
  const other = kura.doc(db, 'users', uid, 'counters', 'other');
  const batch = kura.writeBatch(db);
  batch.set(counter, { n: 0 }).set(other, { n: 5 }).update(other, { n: kura.increment(1) });
  await batch.commit();
  t.equal('a batch applies its writes in order', (await kura.getDoc(other)).get('n'), 6);
  const failing = kura.writeBatch(db);
  failing.set(counter, { n: 100 }).update(kura.doc(db, 'users', uid, 'counters', 'missing'), { n: 1 });
  await t.rejects('a batch with a failing write', failing.commit(), 'not-found');
  t.equal('... applies nothing', (await kura.getDoc(counter)).get('n'), 0);
  let runs = 0;
  const bump = () => kura.runTransaction(db, async (tx) => {
    runs += 1;
    const snapshot = await tx.get(counter);
    await new Promise((resolve) => setTimeout(resolve, 30));
    tx.update(counter, { n: snapshot.get('n') + 1 });
    return snapshot.get('n') + 1;
  });
  const results = await Promise.all([bump(), bump(), bump()]);
  t.equal('three concurrent transactions all count', (await kura.getDoc(counter)).get('n'), 3);
  t.equal('each returns its value', results.sort(), [1, 2, 3]);
  t.check('conflicts were retried', runs > 3, `${runs} runs`);
  const created = await kura.runTransaction(db, async (tx) => {
    const snapshot = await tx.get(kura.doc(db, 'users', uid, 'counters', 'new'));
    tx.set(snapshot.ref, { n: snapshot.exists() ? -1 : 1 });
    return snapshot.exists();
  });
  t.equal('a transaction can create what it read as missing', [created, (await kura.getDoc(kura.doc(db, 'users', uid, 'counters', 'new'))).get('n')], [false, 1]);
  await t.rejects('a transaction that fails passes its error on', kura.runTransaction(db, async (tx) => {
    await tx.get(counter);
    tx.update(kura.doc(db, 'users', 'someone', 'counters', 'x'), { n: 1 });
  }), 'permission-denied');
}

export async function inWorker(t) {
  const source = `
    import * as kura from '${location.origin}/sdk/kura.js';
    onmessage = async ({ data }) => {
      try {
        const app = kura.initializeApp({ url: data.url, authPersistence: 'memory' });
        const auth = kura.getAuth(app);
        const { user } = await kura.createUserWithEmailAndPassword(auth, 'worker@example.com', 'secret1');
        const db = kura.getDatabase(app);
        const ref = kura.doc(db, 'users', user.uid, 'notes', 'w');
        await kura.setDoc(ref, { from: 'worker' });
        postMessage({ ok: true, data: (await kura.getDoc(ref)).data() });
      } catch (error) {
        postMessage({ ok: false, error: String(error.stack || error) });
      }
    };`;
  const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })), { type: 'module' });
  const answer = await new Promise((resolve) => {
    worker.onmessage = ({ data }) => resolve(data);
    worker.onerror = (event) => resolve({ ok: false, error: event.message });
    worker.postMessage({ url: t.url });
  });
  worker.terminate();
  t.equal('signed up, wrote and read from a worker', answer, { ok: true, data: { from: 'worker' } });
}
