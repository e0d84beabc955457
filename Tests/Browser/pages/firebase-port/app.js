// A memo app written as for Firebase v10 (modular API). Ported to Kura by changing the three import lines only:
// they read 'firebase/app', 'firebase/auth' and 'firebase/firestore'. For local development it connects to the
// emulator named by ?emulator=http://host:port (Firebase's emulator suite, or a Kura server).

import { initializeApp } from '/sdk/kura.js';
import {
  getAuth, connectAuthEmulator, onAuthStateChanged, createUserWithEmailAndPassword, signInWithEmailAndPassword,
  signOut, getIdTokenResult, AuthErrorCodes,
} from '/sdk/kura.js';
import {
  initializeFirestore, persistentLocalCache, persistentMultipleTabManager, connectFirestoreEmulator, collection, doc,
  addDoc, updateDoc, deleteDoc, query, orderBy, onSnapshot, serverTimestamp, increment, Timestamp, FirestoreError,
} from '/sdk/kura.js';

const firebaseConfig = {
  apiKey: 'demo-api-key',
  authDomain: 'memo-demo.firebaseapp.com',
  projectId: 'memo-demo',
  appId: '1:000000000000:web:0000000000000000',
};

const app = initializeApp(firebaseConfig);
const auth = getAuth(app);
const db = initializeFirestore(app, {
  localCache: persistentLocalCache({ tabManager: persistentMultipleTabManager() }),
});
const emulator = new URLSearchParams(location.search).get('emulator');
if (emulator) {
  connectAuthEmulator(auth, emulator, { disableWarnings: true });
  const { hostname, port } = new URL(emulator);
  connectFirestoreEmulator(db, hostname, Number(port));
}

const $ = (id) => document.getElementById(id);
const state = { memos: [], fromCache: false, ready: false, stop: null };
window.memoApp = state;

const messages = {
  [AuthErrorCodes.INVALID_LOGIN_CREDENTIALS]: 'Wrong email or password.',
  [AuthErrorCodes.EMAIL_EXISTS]: 'That email already has an account. Sign in instead.',
  [AuthErrorCodes.WEAK_PASSWORD]: 'Use at least 6 characters.',
  [AuthErrorCodes.INVALID_EMAIL]: 'That email address does not look right.',
};

function formatTime(value) {
  if (!(value instanceof Timestamp)) return null;
  return value.toDate().toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC';
}

function render() {
  const list = $('list');
  list.replaceChildren(...state.memos.map((memo) => {
    const item = document.createElement('li');
    item.dataset.id = memo.id;
    const title = document.createElement('span');
    title.className = 'title';
    title.textContent = memo.title;
    const when = memo.createdAt ? document.createElement('time') : document.createElement('span');
    if (memo.createdAt) {
      when.dateTime = memo.createdAt.toDate().toISOString();
      when.textContent = formatTime(memo.createdAt);
    } else {
      when.className = 'saving';
      when.textContent = 'Saving…';
    }
    if (memo.pending && memo.createdAt) when.textContent += ' · saving…';
    const actions = document.createElement('div');
    actions.className = 'actions';
    const like = document.createElement('button');
    like.type = 'button';
    like.className = 'like secondary';
    like.textContent = `♥ ${memo.likes ?? 0}`;
    like.setAttribute('aria-label', `Like ${memo.title} (${memo.likes ?? 0} likes)`);
    like.onclick = () => updateDoc(doc(db, 'users', auth.currentUser.uid, 'memos', memo.id), { likes: increment(1) });
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'remove secondary';
    remove.textContent = 'Delete';
    remove.setAttribute('aria-label', `Delete ${memo.title}`);
    remove.onclick = () => deleteDoc(doc(db, 'users', auth.currentUser.uid, 'memos', memo.id));
    actions.append(like, remove);
    item.append(title, actions, when);
    return item;
  }));
  $('empty').hidden = state.memos.length > 0;
  $('status').textContent = state.fromCache ? 'Offline: showing saved memos' : 'Live';
}

onAuthStateChanged(auth, async (user) => {
  state.stop?.();
  state.stop = null;
  $('sign-in').hidden = !!user;
  $('memos').hidden = !user;
  if (!user) {
    $('status').textContent = 'Signed out';
    state.ready = true;
    return;
  }
  $('who').textContent = user.email;
  const token = await getIdTokenResult(user);
  $('session').textContent = `Signed in with ${token.signInProvider} on ` +
    `${new Date(user.metadata.lastSignInTime).toUTCString()}`;
  const memos = query(collection(db, 'users', user.uid, 'memos'), orderBy('createdAt', 'desc'));
  state.stop = onSnapshot(memos, { includeMetadataChanges: true }, (snapshot) => {
    state.memos = snapshot.docs.map((d) => ({ id: d.id, pending: d.metadata.hasPendingWrites, ...d.data() }));
    state.fromCache = snapshot.metadata.fromCache;
    render();
    state.ready = true;
  }, (error) => {
    $('data-error').textContent = error instanceof FirestoreError ? `Could not load memos (${error.code}).` : String(error);
  });
});

async function signIn(create) {
  $('auth-error').textContent = '';
  const email = $('email').value.trim();
  const password = $('password').value;
  try {
    if (create) await createUserWithEmailAndPassword(auth, email, password);
    else await signInWithEmailAndPassword(auth, email, password);
  } catch (error) {
    $('auth-error').textContent = messages[error.code] ?? error.message;
  }
}

$('sign-in').addEventListener('submit', (event) => {
  event.preventDefault();
  signIn(false);
});
$('sign-up-button').addEventListener('click', () => {
  if ($('sign-in').reportValidity()) signIn(true);
});
$('sign-out').addEventListener('click', () => signOut(auth));
$('new-memo').addEventListener('submit', async (event) => {
  event.preventDefault();
  const title = $('title').value.trim();
  if (!title) return;
  $('title').value = '';
  try {
    await addDoc(collection(db, 'users', auth.currentUser.uid, 'memos'), {
      title, likes: 0, createdAt: serverTimestamp(), remindAt: Timestamp.fromMillis(Date.now() + 86400000),
    });
  } catch (error) {
    $('data-error').textContent = `Could not save (${error.code}).`;
  }
});
