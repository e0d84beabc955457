// Page-side steps for suite_names.py: Firebase's further names (Timestamp and the other value types, settings,
// cache and network, equality, errors, credentials, the names that throw `unimplemented`).

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tests/Cases/timestamps.json: what reads back as a Timestamp, and what Timestamps and Dates write. */
export async function timestampCases(t, cases) {
  const { kura } = t;
  const db = t.db();
  const uid = t.auth().currentUser.uid;
  const ref = kura.doc(db, 'users', uid, 'times', 'cases');
  const writes = cases.writes.map((c) => (c.timestamp ? new kura.Timestamp(c.timestamp.seconds, c.timestamp.nanoseconds)
    : new Date(c.millis)));
  await kura.setDoc(ref, { reads: cases.reads.map((c) => c.text), writes, nested: { at: writes[0] } });
  const data = (await kura.getDoc(ref)).data();
  cases.reads.forEach((c, index) => {
    const value = data.reads[index];
    const got = value instanceof kura.Timestamp ? { seconds: value.seconds, nanoseconds: value.nanoseconds } : value;
    t.equal(`read ${JSON.stringify(c.text)}`, got,
      c.timestamp ? { seconds: c.timestamp.seconds, nanoseconds: c.timestamp.nanoseconds } : c.text);
  });
  t.check('a Timestamp nested in a map reads back as one', data.nested.at instanceof kura.Timestamp);
  return { path: ref.path };
}

export function timestampClass(t) {
  const { Timestamp } = t.kura;
  const a = Timestamp.fromMillis(1795967968039);
  t.equal('fromMillis', [a.seconds, a.nanoseconds], [1795967968, 39000000]);
  t.equal('toMillis and toDate', [a.toMillis(), a.toDate().toISOString()], [1795967968039, '2026-11-29T15:59:28.039Z']);
  t.check('fromDate and isEqual', Timestamp.fromDate(new Date(1795967968039)).isEqual(a) && !a.isEqual(new Timestamp(1, 0)));
  const before = Timestamp.fromMillis(-5);
  t.equal('before 1970', [before.seconds, before.nanoseconds], [-1, 995000000]);
  t.check('valueOf orders Timestamps for < and >', before < a && a > before && !(a < a));
  t.equal('toString', String(new Timestamp(1, 2)), 'Timestamp(seconds=1, nanoseconds=2)');
  t.equal('toJSON', JSON.parse(JSON.stringify(new Timestamp(1, 2))),
    { seconds: 1, nanoseconds: 2, type: 'firestore/timestamp/1.1' });
  const now = Timestamp.now();
  t.check('now', Math.abs(now.toMillis() - Date.now()) < 60000);
  try {
    new Timestamp(1, 1e9);
    t.check('a nanosecond count out of range throws', false, 'no error');
  } catch (error) {
    t.equal('a nanosecond count out of range throws', error.code, 'invalid-argument');
  }
}

/** serverTimestamp reads back as a Timestamp; GeoPoint and Bytes are stored as their JSON forms. */
export async function valueTypes(t) {
  const { kura } = t;
  const db = t.db();
  const uid = t.auth().currentUser.uid;
  const ref = kura.doc(db, 'users', uid, 'times', 'types');
  await kura.setDoc(ref, {
    at: kura.serverTimestamp(), place: new kura.GeoPoint(35.0116, 135.7681),
    blob: kura.Bytes.fromUint8Array(new Uint8Array([0, 1, 254, 255])), text: 'just text',
  });
  const snapshot = await kura.getDoc(ref);
  const data = snapshot.data();
  t.check('serverTimestamp reads back as a Timestamp', data.at instanceof kura.Timestamp, data.at);
  t.check('... near now', Math.abs(data.at.toMillis() - Date.now()) < 60000, data.at);
  t.check('get() gives a Timestamp too', snapshot.get('at') instanceof kura.Timestamp);
  t.equal('a GeoPoint is stored and read as {latitude, longitude}', data.place, { latitude: 35.0116, longitude: 135.7681 });
  t.equal('Bytes are stored and read as base64 text', data.blob, 'AAH+/w==');
  t.equal('... which Bytes.fromBase64String reads', [...kura.Bytes.fromBase64String(data.blob).toUint8Array()], [0, 1, 254, 255]);
  t.equal('ordinary strings stay strings', data.text, 'just text');
  const q = kura.query(kura.collection(db, 'users', uid, 'times'), kura.where('at', '<=', kura.Timestamp.now()));
  t.equal('a Timestamp works as a query operand', (await kura.getDocs(q)).docs.map((d) => d.id), ['types']);
  return { path: ref.path };
}

/** initializeFirestore's settings: persistence turned on, unsupported settings refused, undefined fields. */
export async function settings(t, url) {
  const { kura } = t;
  const persistent = kura.initializeApp({ url }, 'persistent');
  const db = kura.initializeFirestore(persistent, {
    localCache: kura.persistentLocalCache({ tabManager: kura.persistentMultipleTabManager() }),
  });
  t.check('persistentLocalCache turns on the offline store', db._offline !== null);
  await kura.getDocFromCache(kura.doc(db, 'nowhere/x')).then(
    () => t.check('... so a cache read of an unknown document is a cache miss', false, 'it was read'),
    (error) => t.equal('... so a cache read of an unknown document is a cache miss', error.code, 'unavailable'));
  t.check('initializeFirestore again with the same settings gives the same database',
    kura.initializeFirestore(persistent, { localCache: kura.persistentLocalCache() }) === db);
  t.check('getFirestore gives it too', kura.getFirestore(persistent) === db);
  const refuses = (name, call, code = 'invalid-argument') => {
    try {
      call();
      t.check(name, false, 'no error');
    } catch (error) {
      t.check(name, error.code === code && error.message.length > 20, `${error.code}: ${error.message}`);
    }
  };
  refuses('other settings for a used database: failed-precondition',
    () => kura.initializeFirestore(persistent, { localCache: kura.memoryLocalCache() }), 'failed-precondition');
  const fresh = (name) => kura.initializeApp({ url }, name);
  refuses('a cache size is refused', () => kura.initializeFirestore(fresh('size'), { cacheSizeBytes: 40e6 }));
  refuses('host is refused', () => kura.initializeFirestore(fresh('host'), { host: 'firestore.googleapis.com' }));
  refuses('an unknown setting is refused', () => kura.initializeFirestore(fresh('unknown'), { experimentalTabSync: 1 }));
  refuses('forceOwnership is refused', () => kura.persistentSingleTabManager({ forceOwnership: true }));
  refuses('a named database is refused', () => kura.getFirestore(fresh('named'), 'other-db'));
  refuses('a bounded LRU cache is refused', () => kura.memoryLruGarbageCollector({ cacheSizeBytes: 1e6 }));
  const memory = kura.initializeFirestore(fresh('memory'), {
    localCache: kura.memoryLocalCache({ garbageCollector: kura.memoryEagerGarbageCollector() }),
    cacheSizeBytes: kura.CACHE_SIZE_UNLIMITED, experimentalAutoDetectLongPolling: true,
  });
  t.check('memoryLocalCache: no offline store', memory._offline === null);
  const single = kura.initializeFirestore(fresh('single'), {
    localCache: kura.persistentLocalCache({ tabManager: kura.persistentSingleTabManager() }),
  });
  t.check('persistentSingleTabManager: the offline store too', single._offline !== null);
  const later = kura.getFirestore(fresh('later'));
  await kura.enableIndexedDbPersistence(later);
  t.check('enableIndexedDbPersistence turns it on', later._offline !== null);
  const multi = kura.getFirestore(fresh('multi'));
  await kura.enableMultiTabIndexedDbPersistence(multi);
  t.check('enableMultiTabIndexedDbPersistence turns it on', multi._offline !== null);
}

export async function undefinedFields(t, url) {
  const { kura } = t;
  const uid = t.auth().currentUser.uid;
  const app = kura.initializeApp({ url }, 'undefined-fields');
  const dropping = kura.initializeFirestore(app, { ignoreUndefinedProperties: true });
  await kura.signInWithEmailAndPassword(kura.getAuth(app), t.auth().currentUser.email, 'secret1');
  const ref = kura.doc(dropping, 'users', uid, 'things', 'u');
  await kura.setDoc(ref, { a: 1, b: undefined, c: { d: undefined, e: 2 } });
  await kura.updateDoc(ref, { f: undefined, g: 3 });
  t.equal('ignoreUndefinedProperties: undefined fields are left out', (await kura.getDoc(ref)).data(),
    { a: 1, c: { e: 2 }, g: 3 });
  const strict = t.db();
  try {
    await kura.setDoc(kura.doc(strict, 'users', uid, 'things', 'v'), { a: 1, c: { d: undefined } });
    t.check('without it an undefined field is refused', false, 'stored');
  } catch (error) {
    t.check('without it an undefined field is refused, naming the field',
      error.code === 'invalid-argument' && error.message.includes('c.d'), `${error.code}: ${error.message}`);
  }
}

/** disableNetwork/enableNetwork, onSnapshotsInSync, pending server timestamps, terminate. */
export async function network(t) {
  const { kura } = t;
  const db = t.db();
  const uid = t.auth().currentUser.uid;
  const ref = kura.doc(db, 'users', uid, 'net', 'a');
  const earlier = kura.Timestamp.fromMillis(1700000000000);
  await kura.setDoc(ref, { at: earlier, n: 1 });
  let syncs = 0;
  const stopSync = kura.onSnapshotsInSync(db, () => syncs++);
  const snapshots = [];
  const stop = kura.onSnapshot(ref, { includeMetadataChanges: true }, (s) => snapshots.push({
    fromCache: s.metadata.fromCache, pending: s.metadata.hasPendingWrites, n: s.get('n'),
  }));
  await t.until('the listener hears from the server', () => snapshots.some((s) => !s.fromCache));
  await t.until('onSnapshotsInSync fires', () => syncs > 0);
  await kura.disableNetwork(db);
  await t.until('the listener says fromCache after disableNetwork', () => snapshots.at(-1).fromCache);
  const cached = await kura.getDoc(ref);
  t.equal('getDoc answers from the cache', [cached.metadata.fromCache, cached.get('n')], [true, 1]);
  await kura.updateDoc(ref, { at: kura.serverTimestamp(), n: 2 });
  t.equal('a write is queued', await kura.getPendingWriteCount(db), 1);
  const pending = await kura.getDoc(ref);
  t.equal('a pending server timestamp reads null by default', pending.data().at, null);
  t.equal("... and with serverTimestamps: 'none'", pending.get('at', { serverTimestamps: 'none' }), null);
  const estimate = pending.data({ serverTimestamps: 'estimate' }).at;
  t.check("... the local time with 'estimate'", estimate instanceof kura.Timestamp &&
    Math.abs(estimate.toMillis() - Date.now()) < 60000, estimate);
  t.check("... the value before with 'previous'", pending.data({ serverTimestamps: 'previous' }).at?.isEqual(earlier),
    pending.data({ serverTimestamps: 'previous' }).at);
  await wait(300);
  const status = await fetch(`${t.url}/api/docs/${ref.path}`, {
    headers: { Authorization: `Bearer ${await kura.getIdToken(t.auth().currentUser)}` },
  }).then((r) => r.json());
  t.equal('nothing was sent while the network is disabled', status.data?.n, 1);
  await kura.enableNetwork(db);
  await kura.waitForPendingWrites(db);
  await t.until('the listener is back in sync', () => !snapshots.at(-1).fromCache && snapshots.at(-1).n === 2);
  const synced = await kura.getDoc(ref);
  t.check('after enableNetwork the server time reads as a Timestamp', synced.data().at instanceof kura.Timestamp &&
    !synced.data().at.isEqual(earlier));
  stop();
  stopSync();
  await kura.terminate(db);
  await t.rejects('a terminated database refuses calls', kura.getDoc(ref), 'failed-precondition');
  await kura.clearIndexedDbPersistence(db);
  t.check('clearIndexedDbPersistence after terminate', true);
  t.check('getFirestore makes a new database after terminate', kura.getFirestore(t.app()) !== db);
  t.equal('... which works', (await kura.getDoc(kura.doc(kura.getFirestore(t.app()), ref.path))).get('n'), 2);
}

export async function equality(t) {
  const { kura } = t;
  const db = t.db();
  const uid = t.auth().currentUser.uid;
  const todos = kura.collection(db, 'users', uid, 'todos');
  const q = (limit) => kura.query(todos, kura.where('done', '==', false), kura.orderBy('title'), kura.limit(limit));
  t.check('queryEqual: the same query', kura.queryEqual(q(2), q(2)));
  t.check('queryEqual: another limit', !kura.queryEqual(q(2), q(3)));
  t.check('queryEqual: a collection and itself', kura.queryEqual(todos, kura.collection(db, `users/${uid}/todos`)));
  await kura.setDoc(kura.doc(todos, 'a'), { title: 'a', done: false });
  const [x, y] = [await kura.getDoc(kura.doc(todos, 'a')), await kura.getDoc(kura.doc(todos, 'a'))];
  t.check('snapshotEqual: two reads of one document', kura.snapshotEqual(x, y));
  await kura.updateDoc(kura.doc(todos, 'a'), { title: 'b' });
  t.check('snapshotEqual: after a change', !kura.snapshotEqual(x, await kura.getDoc(kura.doc(todos, 'a'))));
  const [s1, s2] = [await kura.getDocs(q(2)), await kura.getDocs(q(2))];
  t.check('snapshotEqual: two query snapshots', kura.snapshotEqual(s1, s2));
  t.check('snapshotEqual: a query snapshot and a document snapshot', !kura.snapshotEqual(s1, x));
}

export async function errors(t) {
  const { kura } = t;
  const auth = t.auth();
  const email = auth.currentUser.email;
  const wrong = await kura.signInWithEmailAndPassword(auth, email, 'wrong-1').catch((e) => e);
  t.equal('an auth error is a FirebaseError', [wrong.name, wrong.code, wrong instanceof kura.FirebaseError],
    ['FirebaseError', kura.AuthErrorCodes.INVALID_LOGIN_CREDENTIALS, true]);
  t.check("... with Firebase's message form", /^Firebase: .+ \(auth\/invalid-credential\)\.$/.test(wrong.message),
    wrong.message);
  t.check('... not a FirestoreError', !(wrong instanceof kura.FirestoreError));
  const denied = await kura.getDoc(kura.doc(t.db(), 'users', 'someone-else', 'x', 'y')).catch((e) => e);
  t.equal('a data error is a FirestoreError', [denied.name, denied.code, denied instanceof kura.FirestoreError,
    denied instanceof kura.FirebaseError], ['FirebaseError', 'permission-denied', true, true]);
  t.check('... whose toString is Firestore\'s', String(denied).startsWith('FirebaseError: [code=permission-denied]: '),
    String(denied));
  t.equal('AuthErrorCodes', [kura.AuthErrorCodes.EMAIL_EXISTS, kura.AuthErrorCodes.CREDENTIAL_TOO_OLD_LOGIN_AGAIN,
    kura.AuthErrorCodes.INVALID_PASSWORD], ['auth/email-already-in-use', 'auth/requires-recent-login', 'auth/wrong-password']);
}

/** reauthenticateWithCredential after auth/requires-recent-login (the server's window is 3 s in this test). */
export async function credentials(t, otherEmail) {
  const { kura } = t;
  const auth = t.auth();
  const user = auth.currentUser;
  const email = user.email;
  t.check('metadata.lastSignInTime is set after sign-in', !Number.isNaN(Date.parse(user.metadata.lastSignInTime)) &&
    Math.abs(Date.parse(user.metadata.lastSignInTime) - Date.now()) < 60000, user.metadata.lastSignInTime);
  t.check('metadata.creationTime is a UTC date string', / GMT$/.test(user.metadata.creationTime), user.metadata.creationTime);
  const result = await kura.getIdTokenResult(user);
  t.equal('getIdTokenResult(user)', [result.claims.sub, result.signInProvider, typeof result.token],
    [user.uid, 'password', 'string']);
  t.check('... with its times', [result.authTime, result.issuedAtTime, result.expirationTime].every((s) =>
    !Number.isNaN(Date.parse(s))) && Date.parse(result.expirationTime) > Date.parse(result.issuedAtTime));
  const token = await kura.getIdToken(user, true);
  t.check('getIdToken(user, true) gives a fresh token', typeof token === 'string' && token.split('.').length === 3);
  await kura.reload(user);
  t.equal('reload(user)', auth.currentUser.email, email);
  await wait(4200);
  await t.rejects('a password change without a recent sign-in', kura.updatePassword(user, 'secret2'),
    'auth/requires-recent-login');
  await t.rejects('reauthentication with a wrong password',
    kura.reauthenticateWithCredential(user, kura.EmailAuthProvider.credential(email, 'wrong-1')), 'auth/invalid-credential');
  await t.rejects("reauthentication with another account's credential",
    kura.reauthenticateWithCredential(user, kura.EmailAuthProvider.credential(otherEmail, 'secret1')), 'auth/user-mismatch');
  const again = await kura.reauthenticateWithCredential(user, kura.EmailAuthProvider.credential(email, 'secret1'));
  t.equal('reauthenticateWithCredential', [again.operationType, again.user === auth.currentUser, again.user.uid],
    ['reauthenticate', true, user.uid]);
  await kura.updatePassword(auth.currentUser, 'secret2');
  t.check('... after which the password change goes through', true);
  await kura.signOut(auth);
  await kura.signInWithCredential(auth, kura.EmailAuthProvider.credential(email, 'secret2'));
  t.equal('signInWithCredential with the new password', auth.currentUser?.email, email);
  await t.rejects('updateEmail: Kura confirms a new address first', kura.updateEmail(auth.currentUser, 'new@example.com'),
    'auth/operation-not-allowed');
  t.equal('fetchSignInMethodsForEmail never tells', [await kura.fetchSignInMethodsForEmail(auth, email),
    await kura.fetchSignInMethodsForEmail(auth, 'nobody@example.com')], [[], []]);
  await t.rejects('fetchSignInMethodsForEmail: a malformed address', kura.fetchSignInMethodsForEmail(auth, 'nope'),
    'auth/invalid-email');
  kura.setLogLevel('silent');
  kura.setLogLevel('info');
  try {
    kura.setLogLevel('loud');
    t.check('setLogLevel refuses an unknown level', false, 'no error');
  } catch (error) {
    t.equal('setLogLevel refuses an unknown level', error.code, 'invalid-argument');
  }
}

/** connectAuthEmulator / connectFirestoreEmulator point an app made for another URL at this Kura. */
export async function emulators(t, email) {
  const { kura } = t;
  const app = kura.initializeApp({ apiKey: 'AIza-unused', projectId: 'memo', url: 'http://127.0.0.1:9' }, 'emulated');
  const auth = kura.getAuth(app);
  const db = kura.initializeFirestore(app, { localCache: kura.persistentLocalCache() });
  kura.connectAuthEmulator(auth, t.url);
  const { hostname, port } = new URL(t.url);
  kura.connectFirestoreEmulator(db, hostname, Number(port));
  await kura.signInWithEmailAndPassword(auth, email, 'secret1');
  const ref = kura.doc(db, 'users', auth.currentUser.uid, 'emulated', 'a');
  await kura.setDoc(ref, { ok: true });
  t.equal('the app talks to the Kura it was pointed at', (await kura.getDoc(ref)).data(), { ok: true });
  try {
    kura.connectAuthEmulator(auth, 'localhost:9099');
    t.check('connectAuthEmulator needs a URL', false, 'no error');
  } catch (error) {
    t.equal('connectAuthEmulator needs a URL', error.code, 'auth/invalid-emulator-scheme');
  }
}

/** The names that need server features Kura lacks throw `unimplemented` at the call. */
export async function unimplementedNames(t) {
  const { kura } = t;
  const auth = t.auth();
  const calls = {
    'new GoogleAuthProvider()': () => new kura.GoogleAuthProvider(),
    'new OAuthProvider()': () => new kura.OAuthProvider('apple.com'),
    'GithubAuthProvider.credential': () => kura.GithubAuthProvider.credential('token'),
    signInWithPopup: () => kura.signInWithPopup(auth, {}),
    signInWithRedirect: () => kura.signInWithRedirect(auth, {}),
    getRedirectResult: () => kura.getRedirectResult(auth),
    signInAnonymously: () => kura.signInAnonymously(auth),
    sendSignInLinkToEmail: () => kura.sendSignInLinkToEmail(auth, 'a@example.com', {}),
    signInWithEmailLink: () => kura.signInWithEmailLink(auth, 'a@example.com', 'https://x'),
    'EmailAuthProvider.credentialWithLink': () => kura.EmailAuthProvider.credentialWithLink('a@example.com', 'https://x'),
    signInWithPhoneNumber: () => kura.signInWithPhoneNumber(auth, '+81', {}),
    signInWithCustomToken: () => kura.signInWithCustomToken(auth, 'token'),
    multiFactor: () => kura.multiFactor(auth.currentUser),
    loadBundle: () => kura.loadBundle(t.db(), ''),
    namedQuery: () => kura.namedQuery(t.db(), 'q'),
  };
  for (const [name, call] of Object.entries(calls)) {
    try {
      await call();
      t.check(`${name} throws unimplemented`, false, 'no error');
    } catch (error) {
      t.check(`${name} throws unimplemented`, error.code === 'unimplemented' && error.name === 'FirebaseError' &&
        /not available with Kura: .{20,}/.test(error.message), `${error.code}: ${error.message}`);
    }
  }
  t.equal('isSignInWithEmailLink is false (a start-up check goes on)', kura.isSignInWithEmailLink(auth, location.href), false);
}

/** getDoc of a missing document answers exists() === false without a failed request. */
export async function missingDocument(t) {
  const { kura } = t;
  const uid = t.auth().currentUser.uid;
  const ref = kura.doc(t.db(), 'users', uid, 'todos', 'never-written');
  const snapshot = await kura.getDoc(ref);
  t.equal('getDoc of a missing document', [snapshot.exists(), snapshot.data()], [false, undefined]);
  const inTransaction = await kura.runTransaction(t.db(), async (tx) => (await tx.get(ref)).exists());
  t.equal('... and in a transaction', inTransaction, false);
}

/** A queued write meeting 409 ABORTED stays queued and is sent again (as Firestore), never dropped. */
export async function abortedIsRetried(t) {
  const { kura } = t;
  const db = t.db();
  const uid = t.auth().currentUser.uid;
  const original = window.fetch;
  let aborted = 0;
  window.fetch = (input, init) => {
    if (String(input).includes('/api/commit') && aborted < 3) {
      aborted += 1;
      return Promise.resolve(new Response(JSON.stringify({ error: { code: 'ABORTED', message: 'the documents kept changing' } }),
        { status: 409, headers: { 'Content-Type': 'application/json' } }));
    }
    return original(input, init);
  };
  const refusals = [];
  const stop = kura.onWriteError(db, (event) => refusals.push(event.error.code));
  try {
    const ref = kura.doc(db, 'users', uid, 'counters', 'c');
    await kura.setDoc(ref, { n: kura.increment(1) });
    t.equal('the write met ABORTED and was sent again until it went through', aborted, 3);
    t.equal('... stored once', (await kura.getDocFromServer(ref)).data(), { n: 1 });
    t.equal('... and never reported as refused', refusals, []);
    t.equal('... and the queue is empty', await kura.getPendingWriteCount(db), 0);
  } finally {
    window.fetch = original;
    stop();
  }
}
