// Type-checked by the browser suite (tsc --strict) against web/sdk/kura.d.ts: a small app using the declarations
// as a Firebase developer would.

import {
  initializeApp, getAuth, getDatabase, onAuthStateChanged, signInWithEmailAndPassword, createUserWithEmailAndPassword,
  signOut, sendEmailVerification, sendPasswordResetEmail, collection, doc, getDoc, getDocs, setDoc, addDoc, updateDoc,
  deleteDoc, query, where, orderBy, limit, limitToLast, startAfter, endBefore, getCountFromServer, writeBatch,
  runTransaction, serverTimestamp, increment, arrayUnion, arrayRemove, deleteField, onSnapshot, KuraError,
  waitForPendingWrites, onWriteError, User, QuerySnapshot, FirestoreDataConverter,
} from '../../../web/sdk/kura.js';

interface Todo {
  title: string;
  done: boolean;
}

const converter: FirestoreDataConverter<Todo> = {
  toFirestore: (todo) => ({ title: todo.title, done: todo.done }),
  fromFirestore: (snapshot) => ({ title: String(snapshot.get('title')), done: snapshot.data().done === true }),
};

export async function run(): Promise<number> {
  const app = initializeApp({ url: 'http://127.0.0.1:8090', persistence: 'indexeddb', authPersistence: 'session' });
  const auth = getAuth(app);
  const db = getDatabase(app);
  const stop = onAuthStateChanged(auth, (user: User | null) => console.log(user?.uid));
  stop();
  try {
    await createUserWithEmailAndPassword(auth, 'a@example.com', 'secret1');
  } catch (error) {
    if (error instanceof KuraError && error.code === 'auth/email-already-in-use') {
      await signInWithEmailAndPassword(auth, 'a@example.com', 'secret1');
    }
  }
  const user = auth.currentUser!;
  await sendEmailVerification(user);
  await sendPasswordResetEmail(auth, 'a@example.com');
  const token: string = await user.getIdToken(true);
  await user.reload();
  const todos = collection(db, 'users', user.uid, 'todos').withConverter(converter);
  const ref = await addDoc(todos, { title: 'milk', done: false });
  await setDoc(doc(todos, 'a'), { title: 'eggs', done: false });
  await setDoc(doc(db, 'users', user.uid), { seen: serverTimestamp() }, { merge: true });
  await updateDoc(doc(db, 'users', user.uid), { n: increment(1), tags: arrayUnion('x'), old: arrayRemove('y'), gone: deleteField() });
  await updateDoc(doc(db, 'users', user.uid), 'a.b', 1, 'c', 2);
  const snapshot = await getDoc(ref);
  const todo: Todo | undefined = snapshot.data();
  const page: QuerySnapshot<Todo> = await getDocs(query(todos, where('done', '==', false), orderBy('title'), limit(10)));
  const tail = await getDocs(query(todos, orderBy('title'), startAfter(page.docs[0]), endBefore('z'), limitToLast(2)));
  const titles: string[] = tail.docs.map((d) => d.data().title);
  const count: number = (await getCountFromServer(todos)).data().count;
  const batch = writeBatch(db);
  batch.set(doc(todos, 'b'), { title: 'b', done: true }).delete(ref);
  await batch.commit();
  const total = await runTransaction(db, async (tx) => {
    const current = await tx.get(doc(db, 'users', user.uid));
    tx.update(current.ref, { n: (current.get('n') as number) + 1 });
    return current.get('n') as number;
  });
  const unsubscribe = onSnapshot(query(todos, orderBy('title')), { includeMetadataChanges: true }, (s) => {
    for (const change of s.docChanges()) console.log(change.type, change.oldIndex, change.newIndex, change.doc.data().title);
    console.log(s.metadata.hasPendingWrites, s.metadata.fromCache);
  }, (error: KuraError) => console.log(error.code));
  const unwatch = onSnapshot(doc(todos, 'a'), (s) => console.log(s.exists(), s.data()?.title));
  unsubscribe();
  unwatch();
  onWriteError(db, ({ error }) => console.log(error.serverCode));
  await waitForPendingWrites(db);
  await deleteDoc(doc(todos, 'a'));
  await signOut(auth);
  return token.length + titles.length + count + total + (todo ? 1 : 0);
}
