// Accounts: Firebase Auth's modular API over Kura's /api/auth endpoints. The session (ID token, refresh token,
// profile) is kept in localStorage, sessionStorage or memory; ID tokens are refreshed shortly before they expire;
// concurrent calls share one refresh; tabs of one app share one session and never spend a refresh token twice
// (a Web Lock serializes refreshes across tabs and each re-reads the stored session first; a BroadcastChannel tells
// the other tabs about sign-in, sign-out and new tokens).

import { authError, isTokenRejection, KuraError } from './errors.js';

/** Values for `setPersistence` / `initializeApp({authPersistence})`, named as in Firebase. */
export const browserLocalPersistence = 'local';
export const browserSessionPersistence = 'session';
export const inMemoryPersistence = 'memory';

/** The auth instance of `app` (made on first use). */
export function getAuth(app) {
  return app._component('auth', () => new Auth(app));
}

/** A signed-in account, as Firebase's `User`. Kept up to date in place by `reload()`. */
export class User {
  constructor(auth, profile) {
    this.auth = auth;
    this.providerId = 'firebase';
    this.isAnonymous = false;
    this.providerData = [];
    this._apply(profile);
  }

  _apply(profile) {
    this.uid = profile.uid;
    this.email = profile.email ?? null;
    this.emailVerified = !!profile.emailVerified;
    this.displayName = profile.displayName ?? null;
    this.disabled = !!profile.disabled;
    this.customClaims = profile.customClaims ?? {};
    this.metadata = { creationTime: profile.createTime ?? null, lastSignInTime: null };
    this.photoURL = null;
    this.phoneNumber = null;
  }

  /** A valid ID token (refreshed first when it is about to expire, or when `forceRefresh`). */
  async getIdToken(forceRefresh = false) {
    const token = await this._auth()._idToken(forceRefresh);
    if (!token) throw new KuraError('auth/no-current-user', 'this user is signed out');
    return token;
  }

  /** The ID token and its decoded claims. */
  async getIdTokenResult(forceRefresh = false) {
    const token = await this.getIdToken(forceRefresh);
    const claims = decodeClaims(token);
    const time = (seconds) => new Date(seconds * 1000).toUTCString();
    return {
      token, claims, signInProvider: 'password', signInSecondFactor: null,
      expirationTime: time(claims.exp), issuedAtTime: time(claims.iat), authTime: time(claims.auth_time ?? claims.iat),
    };
  }

  /** Reads the account again (e.g. after the address was verified in another window). */
  async reload() {
    const auth = this._auth();
    const { body } = await auth._call('GET', '/api/auth/me');
    auth._updateProfile(body.user);
  }

  toJSON() {
    const { uid, email, emailVerified, displayName, disabled, customClaims, metadata } = this;
    return { uid, email, emailVerified, displayName, disabled, customClaims, metadata };
  }

  _auth() {
    if (this.auth.currentUser !== this) throw new KuraError('auth/no-current-user', 'this user is signed out');
    return this.auth;
  }
}

/** The account state of one app. */
export class Auth {
  constructor(app) {
    this.app = app;
    this.name = app.name;
    this.currentUser = null;
    this.languageCode = null;
    this._persistence = app.options.authPersistence ?? browserLocalPersistence;
    this._key = `kura.session:${app.options.url}:${app.name}`;
    this._session = null;
    this._memory = null;
    this._observers = new Set();
    this._refreshing = null;
    this._channel = null;
    this._restore();
    this._listen();
  }

  /** Resolves once the persisted session has been read (at once: storage is synchronous). */
  authStateReady() {
    return Promise.resolve();
  }

  // Storage

  _storage() {
    try {
      if (this._persistence === 'local') return globalThis.localStorage ?? null;
      if (this._persistence === 'session') return globalThis.sessionStorage ?? null;
    } catch {
      // Storage can be blocked (sandboxed frames, some privacy settings): memory then.
    }
    return null;
  }

  _load() {
    const storage = this._storage();
    if (!storage) return this._memory;
    try {
      return JSON.parse(storage.getItem(this._key) ?? 'null');
    } catch {
      return null;
    }
  }

  _store(session) {
    this._memory = session;
    const storage = this._storage();
    if (!storage) return;
    try {
      if (session) storage.setItem(this._key, JSON.stringify(session));
      else storage.removeItem(this._key);
    } catch {
      // Full or blocked storage: the session lives in memory for this page.
    }
  }

  _restore() {
    const session = this._load();
    if (session?.uid && session.refreshToken) {
      this._session = session;
      this.currentUser = new User(this, session.profile);
    }
  }

  /** Other tabs of this app tell us about sign-in, sign-out and refreshed tokens (`local` persistence). */
  _listen() {
    if (this._persistence !== 'local' || typeof BroadcastChannel !== 'function') return;
    this._channel = new BroadcastChannel(this._key);
    this._channel.onmessage = (event) => {
      const session = event.data?.session ?? null;
      this._adopt(session);
    };
  }

  _broadcast(session) {
    this._channel?.postMessage({ session });
  }

  /** Takes `session` (from another tab) as ours, notifying observers when the account changed. */
  _adopt(session) {
    const before = this._session?.uid ?? null;
    if (!session) {
      if (!this._session) return;
      this._session = null;
      this.currentUser = null;
      this._notify();
      return;
    }
    this._session = session;
    if (before === session.uid && this.currentUser) {
      this.currentUser._apply(session.profile);
      return;
    }
    this.currentUser = new User(this, session.profile);
    this._notify();
  }

  /** Sets our session (after a sign-in, refresh or sign-out here), stores and announces it. */
  _setSession(session) {
    const before = this._session?.uid ?? null;
    this._session = session;
    this._store(session);
    this._broadcast(session);
    if (!session) {
      const changed = this.currentUser !== null;
      this.currentUser = null;
      if (changed) this._notify();
    } else if (before === session.uid && this.currentUser) {
      this.currentUser._apply(session.profile);
    } else {
      this.currentUser = new User(this, session.profile);
      this._notify();
    }
  }

  _updateProfile(profile) {
    if (!this._session || profile.uid !== this._session.uid) return;
    this._setSession({ ...this._session, profile });
  }

  _notify() {
    for (const observer of [...this._observers]) {
      try {
        observer(this.currentUser);
      } catch (error) {
        console.error(error);
      }
    }
  }

  // Tokens

  /** The session's ID token, refreshed first when it expires within a minute (or a fifth of its lifetime). */
  async _idToken(forceRefresh = false) {
    const session = this._session;
    if (!session) return null;
    if (!forceRefresh && !expiresSoon(session)) return session.idToken;
    const fresh = await this._refresh(session.idToken);
    return fresh?.idToken ?? null;
  }

  /**
   * A session newer than the one whose ID token is `stale`; `null` when the session ended. One refresh at a time
   * per page (callers share it) and, through a Web Lock, per browser: inside the lock the stored session is read
   * again, and if another tab already refreshed, its tokens are used instead of spending the refresh token again.
   */
  _refresh(stale) {
    if (!this._refreshing) {
      this._refreshing = withLock(`${this._key}:refresh`, () => this._performRefresh(stale)).finally(() => {
        this._refreshing = null;
      });
    }
    return this._refreshing;
  }

  async _performRefresh(stale) {
    let session = this._session;
    if (!session) return null;
    // Another tab may have refreshed while we waited for the lock. localStorage is not a reliable witness of that
    // (Chromium propagates it to other tabs asynchronously); the IndexedDB copy is, because the refreshing tab
    // writes it before releasing the lock.
    const stored = this._persistence === 'local' ? await readShared(this._key) : null;
    if (stored?.sid && stored.sid === session.sid) {
      if (stored.idToken !== stale && !expiresSoon(stored)) {
        this._adopt(stored);
        return stored;
      }
      session = stored;
    }
    let body;
    try {
      ({ body } = await this.app._transport.send('POST', '/api/auth/refresh', {
        body: { refreshToken: session.refreshToken },
      }));
    } catch (error) {
      if (error.network || error.serverCode === 'TOO_MANY_ATTEMPTS_TRY_LATER' || error.status >= 500) {
        throw authError(error);
      }
      // Refused: the session was revoked, or the account disabled or deleted. Signed out, here and in every tab.
      if (this._session?.uid === session.uid) this._setSession(null);
      if (this._persistence === 'local') await writeShared(this._key, null);
      return null;
    }
    const fresh = sessionFrom(body, this._session?.profile ?? session.profile);
    if (this._session?.uid !== session.uid) return null; // signed out meanwhile
    this._setSession(fresh);
    if (this._persistence === 'local') await writeShared(this._key, fresh);
    return fresh;
  }

  /**
   * An API call as the signed-in user (anonymous when signed out). A rejected ID token is refreshed once and the
   * call repeated; errors stay in the data vocabulary (`permission-denied`, …).
   */
  async _call(method, path, options = {}) {
    const token = await this._idToken();
    try {
      return await this.app._transport.send(method, path, { ...options, token });
    } catch (error) {
      if (!token || !isTokenRejection(error)) throw error;
      const fresh = await this._refresh(token);
      if (!fresh) throw error;
      return await this.app._transport.send(method, path, { ...options, token: fresh.idToken });
    }
  }

  async _signIn(path, body) {
    try {
      const response = await this.app._transport.send('POST', path, { body });
      const session = sessionFrom(response.body, response.body.user);
      this._setSession(session);
      if (this._persistence === 'local') await writeShared(this._key, session);
      return { user: this.currentUser, providerId: null, operationType: 'signIn' };
    } catch (error) {
      throw authError(error);
    }
  }

  async _terminate() {
    this._channel?.close();
    this._observers.clear();
  }
}

/** Signs up and signs in; `auth/email-already-in-use`, `auth/invalid-email`, `auth/weak-password`. */
export function createUserWithEmailAndPassword(auth, email, password) {
  return auth._signIn('/api/auth/signup', { email, password });
}

/** Signs in; `auth/invalid-credential` for an unknown address and a wrong password alike. */
export function signInWithEmailAndPassword(auth, email, password) {
  return auth._signIn('/api/auth/signin', { email, password });
}

/**
 * Signs out here and in the app's other tabs, and revokes the session on the server (its ID tokens stop working
 * at once). Never fails: when the server cannot be reached, the session is still forgotten locally.
 */
export async function signOut(auth) {
  const session = auth._session;
  auth._setSession(null);
  if (auth._persistence === 'local') await writeShared(auth._key, null);
  if (!session) return;
  try {
    await auth.app._transport.send('POST', '/api/auth/signout', { body: {}, token: session.idToken });
  } catch {
    // Offline or the token already expired: the refresh token is forgotten, which is what matters here.
  }
}

/** Calls `next(user)` now (asynchronously) and after every sign-in and sign-out; returns the unsubscribe. */
export function onAuthStateChanged(auth, next, error, completed) {
  const observer = typeof next === 'function' ? next : next?.next?.bind(next);
  if (!observer) throw new TypeError('onAuthStateChanged needs a callback');
  let active = true;
  const wrapped = (user) => active && observer(user);
  auth._observers.add(wrapped);
  Promise.resolve().then(() => wrapped(auth.currentUser));
  return () => {
    active = false;
    auth._observers.delete(wrapped);
  };
}

/** Same as onAuthStateChanged here (Kura has no separate token observer). */
export const onIdTokenChanged = onAuthStateChanged;

/** Changes where the session is kept: `browserLocalPersistence`, `browserSessionPersistence`, `inMemoryPersistence`. */
export async function setPersistence(auth, persistence) {
  const session = auth._session;
  auth._store(null);
  auth._channel?.close();
  auth._channel = null;
  auth._persistence = persistence;
  auth._store(session);
  auth._listen();
}

/** Mails a verification link to the user's address. */
export async function sendEmailVerification(user) {
  try {
    await user._auth()._call('POST', '/api/auth/verify-email', { body: {} });
  } catch (error) {
    throw authError(error);
  }
}

/** Mails a password-reset link; succeeds for unknown addresses too (no account enumeration). */
export async function sendPasswordResetEmail(auth, email) {
  try {
    await auth.app._transport.send('POST', '/api/auth/password-reset', { body: { email } });
  } catch (error) {
    throw authError(error);
  }
}

/** Applies a verification code from a mail link (`mode=verifyEmail`). */
export async function applyActionCode(auth, code) {
  try {
    const { body } = await auth.app._transport.send('POST', '/api/auth/verify-email/confirm', { body: { code } });
    auth._updateProfile(body.user);
  } catch (error) {
    throw authError(error);
  }
}

/** Sets a new password with the code from a reset mail; every session of the account is revoked. */
export async function confirmPasswordReset(auth, code, newPassword) {
  try {
    await auth.app._transport.send('POST', '/api/auth/password-reset/confirm', { body: { code, newPassword } });
  } catch (error) {
    throw authError(error);
  }
}

/** Changes the display name (`{displayName}`; `photoURL` is not stored by Kura). */
export async function updateProfile(user, { displayName }) {
  await patchMe(user, { displayName });
}

/** Changes the password (needs a recent sign-in: `auth/requires-recent-login`); other sessions are signed out. */
export async function updatePassword(user, newPassword) {
  await patchMe(user, { password: newPassword });
}

/** Mails a confirmation link to `newEmail`; the address changes when it is followed. */
export async function verifyBeforeUpdateEmail(user, newEmail) {
  await patchMe(user, { email: newEmail });
}

/** Deletes the account (needs a recent sign-in) and signs out. */
export async function deleteUser(user) {
  const auth = user._auth();
  try {
    await auth._call('DELETE', '/api/auth/me');
  } catch (error) {
    throw authError(error);
  }
  auth._setSession(null);
}

async function patchMe(user, body) {
  const auth = user._auth();
  try {
    const response = await auth._call('PATCH', '/api/auth/me', { body });
    auth._updateProfile(response.body.user);
  } catch (error) {
    throw authError(error);
  }
}

// Helpers

function sessionFrom(body, profile) {
  const lifetime = Number(body.expiresIn ?? 3600);
  let sid = null;
  try {
    sid = decodeClaims(body.idToken).sid ?? null;
  } catch {
    // A token without readable claims: sessions are then told apart by their tokens only.
  }
  return {
    uid: profile.uid,
    sid,
    profile,
    idToken: body.idToken,
    refreshToken: body.refreshToken,
    // A second less than the server says, so the SDK never presents a token the server just let expire.
    expiresAt: Date.now() + (lifetime - 1) * 1000,
    lifetime,
  };
}

function expiresSoon(session) {
  const margin = Math.min(60, (session.lifetime ?? 3600) / 5) * 1000;
  return Date.now() >= session.expiresAt - margin;
}

function decodeClaims(token) {
  const part = token.split('.')[1] ?? '';
  const base64 = part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '=');
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

/** Runs `task` holding the Web Lock `name` (across the origin's tabs and workers), or directly without Web Locks. */
function withLock(name, task) {
  const locks = globalThis.navigator?.locks;
  if (!locks?.request) return task();
  return locks.request(name, task);
}

// The session as last written by any tab, in IndexedDB (consistent across tabs, unlike localStorage's
// asynchronous propagation), read and written under the refresh lock. Missing IndexedDB: null (the lock alone
// then orders the refreshes of one tab).

let sharedDatabase = null;

function openShared() {
  if (!globalThis.indexedDB) return Promise.resolve(null);
  sharedDatabase ??= new Promise((resolve) => {
    const request = indexedDB.open('kura-sessions', 1);
    request.onupgradeneeded = () => request.result.createObjectStore('sessions');
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => resolve(null);
    request.onblocked = () => resolve(null);
  });
  return sharedDatabase;
}

async function readShared(key) {
  const idb = await openShared();
  if (!idb) return null;
  return new Promise((resolve) => {
    const request = idb.transaction('sessions', 'readonly').objectStore('sessions').get(key);
    request.onsuccess = () => resolve(request.result ?? null);
    request.onerror = () => resolve(null);
  });
}

async function writeShared(key, session) {
  const idb = await openShared();
  if (!idb) return;
  await new Promise((resolve) => {
    const tx = idb.transaction('sessions', 'readwrite', { durability: 'strict' });
    if (session) tx.objectStore('sessions').put(session, key);
    else tx.objectStore('sessions').delete(key);
    tx.oncomplete = resolve;
    tx.onerror = resolve;
    tx.onabort = resolve;
  });
}
