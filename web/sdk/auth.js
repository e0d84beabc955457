// Accounts: the Auth instance and the User, over Kura's /api/auth endpoints (the calls are in accounts.js). The
// session (ID token, refresh token, profile) is kept in localStorage, sessionStorage or memory; ID tokens are
// refreshed shortly before they expire; concurrent calls share one refresh; tabs of one app share one session and
// never spend a refresh token twice (a Web Lock serializes refreshes across tabs, and under it each tab reads the
// latest session from IndexedDB first; a BroadcastChannel tells the other tabs about sign-in, sign-out and new
// tokens).

import { getApp } from './app.js';
import { authError, isTokenRejection, KuraError, networkError } from './errors.js';
import { decodeClaims, expiresSoon, readShared, sessionFrom, withLock, writeShared } from './session.js';

/** Values for `setPersistence` / `initializeApp({authPersistence})`, named as in Firebase. */
export const browserLocalPersistence = 'local';
export const browserSessionPersistence = 'session';
export const inMemoryPersistence = 'memory';

/** The auth instance of `app` (default: the default app), made on first use. */
export function getAuth(app = getApp()) {
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
    this._createTime = profile.createTime ?? null;
    this.photoURL = null;
    this.phoneNumber = null;
  }

  /**
   * Firebase's `UserMetadata`, as UTC date strings: the account's creation, and this session's sign-in (the ID
   * token's `auth_time`: when the password was last given).
   */
  get metadata() {
    const utc = (ms) => (Number.isFinite(ms) ? new Date(ms).toUTCString() : null);
    let signIn = null;
    const session = this.auth._session;
    if (session?.uid === this.uid) {
      try {
        const claims = decodeClaims(session.idToken);
        signIn = (claims.auth_time ?? claims.iat) * 1000;
      } catch {
        signIn = null;
      }
    }
    return { creationTime: this._createTime ? utc(Date.parse(this._createTime)) : null, lastSignInTime: utc(signIn) };
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
    /** The account whose sign-up mailed a verification link, and when (`performance.now()`). */
    this._signUpVerification = null;
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
    // writes it before releasing the lock. Its refresh token tells: every refresh rotates it, while two refreshes
    // within one second may return the very same ID token (same claims, deterministic signature).
    const stored = this._persistence === 'local' ? await readShared(this._key) : null;
    if (stored?.sid && stored.sid === session.sid) {
      const newer = stored.refreshToken !== session.refreshToken || stored.idToken !== stale;
      if (newer && !expiresSoon(stored)) {
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
    const fresh = sessionFrom(body, body.user ?? this._session?.profile ?? session.profile);
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
    let token;
    try {
      token = await this._idToken();
    } catch (error) {
      // The token could not be refreshed for want of a network: to data calls that is `unavailable`.
      throw error.network ? networkError(error.cause ?? error) : error;
    }
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
      // A sign-up whose answer says the server mailed a verification link: the next sendEmailVerification (the
      // call a Firebase app makes right after sign-up) sends nothing (see accounts.js).
      if (path === '/api/auth/signup') {
        this._signUpVerification = response.body.verificationSent === true
          ? { uid: session.uid, at: globalThis.performance?.now() ?? Date.now() } : null;
      }
      this._setSession(session);
      if (this._persistence === 'local') await writeShared(this._key, session);
      return { user: this.currentUser, providerId: null, operationType: 'signIn' };
    } catch (error) {
      throw authError(error);
    }
  }

  /** The app now talks to another server (connectAuthEmulator, connectFirestoreEmulator): its own session. */
  _retarget() {
    this._channel?.close();
    this._channel = null;
    this._key = `kura.session:${this.app.options.url}:${this.app.name}`;
    const before = this.currentUser;
    this._session = null;
    this.currentUser = null;
    this._restore();
    this._listen();
    if (before !== this.currentUser) this._notify();
  }

  async _terminate() {
    this._channel?.close();
    this._observers.clear();
  }
}
