// Page-side steps for suite_auth.py.

export async function signUp(t, email) {
  const credential = await t.kura.createUserWithEmailAndPassword(t.auth(), email, 'secret1');
  t.equal(`signed up as ${email}`, credential.user.email, email);
  return credential.user.uid;
}

export async function signUpAndErrors(t, email) {
  const { kura } = t;
  const auth = t.auth();
  const states = [];
  kura.onAuthStateChanged(auth, (user) => states.push(user?.email ?? null));
  const credential = await kura.createUserWithEmailAndPassword(auth, email, 'secret1');
  t.equal('sign-up signs in', auth.currentUser?.email, email);
  t.check('the credential carries the current user', credential.user === auth.currentUser);
  t.equal('a new address is not verified', auth.currentUser.emailVerified, false);
  await t.rejects('an address in use', kura.createUserWithEmailAndPassword(auth, email, 'secret1'),
    'auth/email-already-in-use');
  await t.rejects('a weak password', kura.createUserWithEmailAndPassword(auth, `x${email}`, '123'), 'auth/weak-password');
  await t.rejects('a malformed address', kura.createUserWithEmailAndPassword(auth, 'not-an-address', 'secret1'),
    'auth/invalid-email');
  await t.rejects('a wrong password', kura.signInWithEmailAndPassword(auth, email, 'wrong-1'), 'auth/invalid-credential');
  await t.rejects('an unknown address', kura.signInWithEmailAndPassword(auth, 'nobody@example.com', 'secret1'),
    'auth/invalid-credential');
  t.equal('failed calls leave the user signed in', auth.currentUser?.email, email);
  const signedIn = await kura.signInWithEmailAndPassword(auth, email, 'secret1');
  t.equal('sign-in', signedIn.user.uid, credential.user.uid);
  const token = await auth.currentUser.getIdToken();
  const result = await auth.currentUser.getIdTokenResult();
  t.equal('getIdTokenResult decodes the claims', [result.token, result.claims.sub, result.claims.email],
    [token, auth.currentUser.uid, email]);
  await kura.sendEmailVerification(auth.currentUser);
  await kura.sendPasswordResetEmail(auth, email);
  await kura.sendPasswordResetEmail(auth, 'nobody@example.com');
  t.check('a reset for an unknown address succeeds (no enumeration)', true);
  await new Promise((resolve) => setTimeout(resolve, 0));
  t.equal('onAuthStateChanged: null at first, then the user', states.slice(0, 2), [null, email]);
  t.state.states = states;
  return { uid: auth.currentUser.uid };
}

export async function reloadSeesVerified(t) {
  const user = t.auth().currentUser;
  await user.reload();
  t.equal('user.reload() reads the verified address', user.emailVerified, true);
  t.check('reload keeps the same User object', t.auth().currentUser === user);
}

export async function signOutAndBack(t, email) {
  const { kura } = t;
  const auth = t.auth();
  const token = await auth.currentUser.getIdToken();
  await kura.signOut(auth);
  t.equal('signed out', auth.currentUser, null);
  t.equal('onAuthStateChanged saw the sign-out', t.state.states.at(-1), null);
  await t.rejects('a signed-out user cannot read private data',
    kura.getDoc(kura.doc(t.db(), 'users', 'someone', 'private', 'x')), 'permission-denied');
  await kura.signInWithEmailAndPassword(auth, email, 'secret1');
  t.equal('signed in again', auth.currentUser?.email, email);
  return token;
}

export function currentEmail(t) {
  return t.auth().currentUser?.email ?? null;
}

export function recordStates(t) {
  t.state.states = [];
  t.kura.onAuthStateChanged(t.auth(), (user) => t.state.states.push(user?.email ?? null));
}

export function statesInclude(t, email) {
  return t.state.states.includes(email) && t.auth().currentUser?.email === email;
}

export function signedOut(t) {
  return t.state.states.at(-1) === null && t.auth().currentUser === null;
}

export async function refreshBeforeExpiry(t) {
  const user = t.auth().currentUser;
  const first = await user.getIdToken();
  t.equal('a fresh token is reused', await user.getIdToken(), first);
  // The token lives 4 s; the SDK refreshes within the last fifth of its life.
  await new Promise((resolve) => setTimeout(resolve, 3400));
  const second = await user.getIdToken();
  t.check('the token was refreshed before it expired', second !== first, 'same token');
  const ref = t.kura.doc(t.db(), 'users', user.uid, 'notes', 'n');
  await t.kura.setDoc(ref, { at: 'late' });
  t.equal('calls go on with the new token', (await t.kura.getDoc(ref)).data(), { at: 'late' });
}

export async function concurrentRefresh(t) {
  const user = t.auth().currentUser;
  const tokens = await Promise.all([1, 2, 3, 4, 5].map(() => user.getIdToken(true)));
  t.equal('five concurrent forced refreshes share one', new Set(tokens).size, 1);
  // Had the refresh token been spent twice (no reuse grace), the session would be revoked now.
  const ref = t.kura.doc(t.db(), 'users', user.uid, 'notes', 'n');
  await t.kura.setDoc(ref, { ok: true });
  t.equal('the session survives', (await t.kura.getDoc(ref)).data(), { ok: true });
  await user.getIdToken(true);
  t.equal('and refreshes again', (await t.kura.getDoc(ref)).exists(), true);
}

export function startRefreshes(t, count) {
  const user = t.auth().currentUser;
  t.state.refreshes = (async () => {
    for (let i = 0; i < count; i++) {
      await Promise.all([user.getIdToken(true), user.getIdToken(true)]);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 30));
    }
  })();
}

export async function finishRefreshes(t) {
  await t.state.refreshes;
  t.check('the refreshes finished signed in', t.auth().currentUser !== null, 'signed out');
}

export async function readOwnDocument(t, name) {
  const { kura } = t;
  const user = t.auth().currentUser;
  const ref = kura.doc(t.db(), 'users', user.uid, 'notes', name);
  await kura.setDoc(ref, { name });
  t.equal(`${name} tab: the shared session still works`, (await kura.getDoc(ref)).get('name'), name);
}

export function refreshToken(t) {
  return t.auth()._session?.refreshToken ?? null;
}

export async function signOut(t) {
  await t.kura.signOut(t.auth());
}

export function muteBroadcast(t) {
  const channel = t.auth()._channel;
  t.state.muted = channel.onmessage;
  channel.onmessage = null;
}

export function unmuteBroadcast(t) {
  t.auth()._channel.onmessage = t.state.muted;
}

export function forceRefresh(t) {
  return t.auth().currentUser.getIdToken(true);
}

export async function applyVerification(t, code) {
  const { kura } = t;
  const info = await kura.checkActionCode(t.auth(), code);
  t.equal('checkActionCode names the operation and address', [info.operation, info.data.email],
    ['VERIFY_EMAIL', t.auth().currentUser.email]);
  await t.rejects('verifyPasswordResetCode refuses a verification code', kura.verifyPasswordResetCode(t.auth(), code),
    'auth/invalid-action-code');
  await kura.applyActionCode(t.auth(), code);
  await t.auth().currentUser.reload();
  t.equal('applyActionCode verifies the address', t.auth().currentUser.emailVerified, true);
  await t.rejects('a code works once', kura.applyActionCode(t.auth(), code), 'auth/invalid-action-code');
  await t.rejects('a spent code no longer checks', kura.checkActionCode(t.auth(), code), 'auth/invalid-action-code');
}

export async function changeProfileAndPassword(t) {
  const { kura } = t;
  const user = t.auth().currentUser;
  await kura.updateProfile(user, { displayName: 'Pat' });
  t.equal('updateProfile', t.auth().currentUser.displayName, 'Pat');
  await t.rejects('updatePassword refuses a weak password', kura.updatePassword(user, '1'), 'auth/weak-password');
  await kura.updatePassword(user, 'secret2');
  await kura.signOut(t.auth());
  await t.rejects('the old password no longer works', kura.signInWithEmailAndPassword(t.auth(), user.email, 'secret1'),
    'auth/invalid-credential');
  await kura.signInWithEmailAndPassword(t.auth(), user.email, 'secret2');
  t.equal('the new one does; the profile came along', t.auth().currentUser.displayName, 'Pat');
}

export async function requestReset(t, email) {
  await t.kura.sendPasswordResetEmail(t.auth(), email);
}

export async function resetPassword(t, code, email) {
  const { kura } = t;
  await t.rejects('a wrong reset code', kura.confirmPasswordReset(t.auth(), 'x'.repeat(43), 'secret3'), 'auth/invalid-action-code');
  t.equal('verifyPasswordResetCode names the address, without spending the code',
    await kura.verifyPasswordResetCode(t.auth(), code), email);
  await kura.confirmPasswordReset(t.auth(), code, 'secret3');
  const credential = await kura.signInWithEmailAndPassword(t.auth(), email, 'secret3');
  t.equal('confirmPasswordReset sets the password', credential.user.email, email);
}

export async function deleteAccount(t, email) {
  const { kura } = t;
  await kura.deleteUser(t.auth().currentUser);
  t.equal('deleteUser signs out', t.auth().currentUser, null);
  await t.rejects('the account is gone', kura.signInWithEmailAndPassword(t.auth(), email, 'secret3'), 'auth/invalid-credential');
}

/** Signs in as `email` (password secret1) unless this page's session already is that account; returns the uid. */
export async function signInAs(t, email) {
  const auth = t.auth();
  if (auth.currentUser?.email !== email) await t.kura.signInWithEmailAndPassword(auth, email, 'secret1');
  t.equal(`signed in as ${email}`, auth.currentUser?.email, email);
  return auth.currentUser.uid;
}

export function currentUid(t) {
  return t.auth().currentUser?.uid ?? null;
}

export async function signOutQuietly(t) {
  await t.kura.signOut(t.auth());
}

/** One step of a case of Tests/Cases/verification-mail.json. */
export async function verificationStep(t, action, email) {
  const { kura } = t;
  const auth = t.auth();
  if (action === 'signUp') await kura.createUserWithEmailAndPassword(auth, email, 'secret1');
  else if (action === 'signIn') await kura.signInWithEmailAndPassword(auth, email, 'secret1');
  else if (action === 'signOut') await kura.signOut(auth);
  else if (action === 'sendEmailVerification') await kura.sendEmailVerification(auth.currentUser);
  else throw new Error(`unknown step ${action}`);
}

/**
 * `rounds` times: sign in, sign out, and at once present the old ID token (GET /api/auth/me), while other calls
 * keep the server busy. Returns the statuses of those requests.
 */
export async function signOutRoundsUnderLoad(t, email, rounds) {
  const { kura } = t;
  const auth = t.auth();
  let running = true;
  const load = Array.from({ length: 6 }, async () => {
    while (running) {
      const uid = auth.currentUser?.uid ?? 'nobody';
      await kura.getDocs(kura.collection(t.db(), 'users', uid, 'todos')).catch(() => {});
      await kura.setDoc(kura.doc(t.db(), 'users', uid, 'todos', 'load'), { n: kura.increment(1) }).catch(() => {});
    }
  });
  const statuses = [];
  const order = [];
  const stopObserving = kura.onAuthStateChanged(auth, (user) => order.push(user ? 'user' : 'null'));
  try {
    for (let round = 0; round < rounds; round++) {
      await kura.signInWithEmailAndPassword(auth, email, 'secret1');
      const token = await auth.currentUser.getIdToken();
      const signingOut = kura.signOut(auth);
      await signingOut;
      order.push('resolved');
      const response = await fetch(`${t.url}/api/auth/me`, { headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' });
      statuses.push(response.status);
    }
  } finally {
    running = false;
    stopObserving();
    await Promise.all(load);
  }
  t.check('onAuthStateChanged(null) comes before signOut resolves', order.filter((e) => e !== 'user').join(' ')
    .startsWith('null resolved'), order.join(' '));
  return statuses;
}

/** signOut while the server cannot be reached to revoke: the session is forgotten here, and the call says so. */
export async function signOutUnrevoked(t) {
  const auth = t.auth();
  try {
    await t.kura.signOut(auth);
    t.check('signOut rejects when the server did not revoke the session', false, 'it resolved');
  } catch (error) {
    t.equal('signOut rejects when the server did not revoke the session', error.code, 'auth/network-request-failed');
    t.check('... saying so', /did not revoke/.test(error.message), error.message);
  }
  t.equal('the session is forgotten here all the same', auth.currentUser, null);
}

/** The session's refresh token, then (after the ID token expired) signOut. */
export async function signOutAfterExpiry(t, waitMs) {
  const auth = t.auth();
  const refreshToken = auth._session.refreshToken;
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  await t.kura.signOut(auth);
  t.equal('signed out', auth.currentUser, null);
  return refreshToken;
}

export async function signInAgain(t, email) {
  await t.kura.signInWithEmailAndPassword(t.auth(), email, 'secret1');
}

export function idToken(t) {
  return t.auth().currentUser.getIdToken();
}
