// Type-checked by the browser suite (tsc --strict) against web/sdk/kura.d.ts: Firebase v10 code using the further
// names (settings, cache and network, Timestamp, credentials, errors), written as a Firebase developer writes it.

import {
  initializeApp, getAuth, initializeFirestore, getFirestore, persistentLocalCache, persistentMultipleTabManager,
  persistentSingleTabManager, memoryLocalCache, memoryLruGarbageCollector, CACHE_SIZE_UNLIMITED, Timestamp, GeoPoint,
  Bytes, FieldPath, documentId, collection, doc, getDoc, setDoc, query, where, orderBy, onSnapshot, serverTimestamp,
  queryEqual, snapshotEqual, refEqual, enableNetwork, disableNetwork, terminate, waitForPendingWrites,
  onSnapshotsInSync, clearIndexedDbPersistence, enableIndexedDbPersistence, enableMultiTabIndexedDbPersistence,
  EmailAuthProvider, reauthenticateWithCredential, getIdToken, getIdTokenResult, reload, updateEmail,
  verifyBeforeUpdateEmail, fetchSignInMethodsForEmail, connectAuthEmulator, connectFirestoreEmulator, setLogLevel,
  signInWithEmailAndPassword, signInWithCredential, FirebaseError, FirestoreError, AuthErrorCodes, GoogleAuthProvider,
  signInWithPopup, signInAnonymously, isSignInWithEmailLink, loadBundle, namedQuery, DocumentSnapshot,
} from '../../../web/sdk/kura.js';

interface Memo {
  title: string;
  createdAt: Timestamp | null;
  place?: GeoPoint;
}

export async function port(): Promise<string> {
  const app = initializeApp({ url: 'http://127.0.0.1:8090' }, 'port');
  const auth = getAuth(app);
  connectAuthEmulator(auth, 'http://127.0.0.1:8090');
  const db = initializeFirestore(app, {
    localCache: persistentLocalCache({ tabManager: persistentMultipleTabManager(), cacheSizeBytes: CACHE_SIZE_UNLIMITED }),
    ignoreUndefinedProperties: true,
  });
  connectFirestoreEmulator(db, '127.0.0.1', 8090);
  const other = initializeFirestore(initializeApp({}, 'memory'), { localCache: memoryLocalCache({ garbageCollector: memoryLruGarbageCollector() }) });
  persistentSingleTabManager({ forceOwnership: false });
  await enableIndexedDbPersistence(other).catch(() => undefined);
  await enableMultiTabIndexedDbPersistence(getFirestore(app)).catch(() => undefined);
  setLogLevel('error');
  if (isSignInWithEmailLink(auth, 'https://example.com')) return 'link';
  let reason = '';
  try {
    await signInWithEmailAndPassword(auth, 'a@example.com', 'secret1');
  } catch (error) {
    if (error instanceof FirebaseError && error.code === AuthErrorCodes.INVALID_LOGIN_CREDENTIALS) reason = error.message;
  }
  const user = auth.currentUser!;
  await reauthenticateWithCredential(user, EmailAuthProvider.credential('a@example.com', 'secret1'));
  await signInWithCredential(auth, EmailAuthProvider.credential('a@example.com', 'secret1'));
  const token: string = await getIdToken(user, true);
  const result = await getIdTokenResult(user);
  const role = result.claims['role'];
  await reload(user);
  await updateEmail(user, 'b@example.com').catch((error: FirebaseError) => error.code);
  await verifyBeforeUpdateEmail(user, 'b@example.com');
  const methods: string[] = await fetchSignInMethodsForEmail(auth, 'a@example.com');
  const created: string | null = user.metadata.creationTime;
  const signedIn: string | null = user.metadata.lastSignInTime;
  const memos = collection(db, 'users', user.uid, 'memos');
  const ref = doc(memos, 'm1');
  await setDoc(ref, { title: 'hello', createdAt: serverTimestamp(), at: Timestamp.now(), when: new Date(), place: new GeoPoint(35, 135),
    blob: Bytes.fromUint8Array(new Uint8Array([1, 2])), skipped: undefined });
  const snapshot: DocumentSnapshot = await getDoc(ref);
  const memo = snapshot.data({ serverTimestamps: 'estimate' }) as Memo;
  const when: string = memo.createdAt?.toDate().toLocaleString() ?? '…';
  const millis: number = Timestamp.fromDate(new Date()).toMillis() + Timestamp.fromMillis(5).seconds;
  const same: boolean = Timestamp.now().isEqual(new Timestamp(1, 2)) && snapshotEqual(snapshot, snapshot);
  const q = query(memos, where(documentId(), '!=', 'x'), orderBy(new FieldPath('createdAt'), 'desc'));
  const equal: boolean = queryEqual(q, q) && refEqual(ref, doc(memos, 'm1'));
  const stop = onSnapshot(q, { includeMetadataChanges: true }, (s) => s.docs.map((d) => d.get('createdAt', { serverTimestamps: 'previous' })));
  const unsync = onSnapshotsInSync(db, () => console.log('in sync'));
  await disableNetwork(db);
  await enableNetwork(db);
  await waitForPendingWrites(db);
  stop();
  unsync();
  try {
    await signInWithPopup(auth, new GoogleAuthProvider());
    await signInAnonymously(auth);
    loadBundle(db, '');
    await namedQuery(db, 'q');
  } catch (error) {
    if (error instanceof FirestoreError) reason += error.code;
  }
  await terminate(db);
  await clearIndexedDbPersistence(db);
  return `${reason}${token}${String(role)}${methods.length}${created}${signedIn}${when}${millis}${same}${equal}` +
    `${memo.place?.latitude}`;
}
