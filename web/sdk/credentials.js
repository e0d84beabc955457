// Firebase Auth's credential and user-function names: `EmailAuthProvider.credential` with
// `reauthenticateWithCredential` (Firebase's answer to `auth/requires-recent-login`) and `signInWithCredential`,
// the free-function forms of `getIdToken`, `getIdTokenResult` and `reload`, `updateEmail`,
// `fetchSignInMethodsForEmail`, `connectAuthEmulator`/`connectFirestoreEmulator` (pointing an app at a Kura
// server) and `setLogLevel`.

import { authError, invalidArgument, KuraError, unimplemented } from './errors.js';
import { sessionFrom, writeShared } from './session.js';

/** A password credential, made by `EmailAuthProvider.credential`. */
export class EmailAuthCredential {
  constructor(email, password) {
    this.providerId = 'password';
    this.signInMethod = 'password';
    this._email = email;
    this._password = password;
  }
  toJSON() {
    return { email: this._email, password: this._password, signInMethod: this.signInMethod };
  }
}

/** Firebase's email-and-password provider. */
export class EmailAuthProvider {
  constructor() {
    this.providerId = EmailAuthProvider.PROVIDER_ID;
  }
  static credential(email, password) {
    return new EmailAuthCredential(email, password);
  }
  static credentialWithLink() {
    throw unimplemented('EmailAuthProvider.credentialWithLink', 'Kura has no email-link (passwordless) sign-in');
  }
}
EmailAuthProvider.PROVIDER_ID = 'password';
EmailAuthProvider.EMAIL_PASSWORD_SIGN_IN_METHOD = 'password';
EmailAuthProvider.EMAIL_LINK_SIGN_IN_METHOD = 'emailLink';

function passwordCredential(credential, call) {
  if (!(credential instanceof EmailAuthCredential)) {
    throw unimplemented(call, 'Kura signs in with email and password only (EmailAuthProvider.credential)');
  }
  return credential;
}

/**
 * Signs the user in again with their password, so that sensitive changes (`updatePassword`,
 * `verifyBeforeUpdateEmail`, `deleteUser`), which the server allows within 5 minutes of a sign-in, go through.
 * The new session replaces the old one, which is revoked. `auth/user-mismatch` for another account's credential.
 */
export async function reauthenticateWithCredential(user, credential) {
  const auth = user._auth();
  const { _email: email, _password: password } = passwordCredential(credential, 'reauthenticateWithCredential');
  const transport = auth.app._transport;
  let body;
  try {
    ({ body } = await transport.send('POST', '/api/auth/signin', { body: { email, password } }));
  } catch (error) {
    throw authError(error);
  }
  if (body.user?.uid !== user.uid) {
    transport.send('POST', '/api/auth/signout', { body: {}, token: body.idToken }).catch(() => {});
    throw new KuraError('auth/user-mismatch', 'the credential is for another account than the user', {
      serverCode: 'USER_MISMATCH',
    });
  }
  const old = auth._session;
  const session = sessionFrom(body, body.user);
  auth._setSession(session);
  if (auth._persistence === 'local') await writeShared(auth._key, session);
  if (old?.idToken) transport.send('POST', '/api/auth/signout', { body: {}, token: old.idToken }).catch(() => {});
  return { user: auth.currentUser, providerId: 'password', operationType: 'reauthenticate' };
}

/** Signs in with a credential: `EmailAuthProvider.credential(email, password)` only. */
export function signInWithCredential(auth, credential) {
  const { _email: email, _password: password } = passwordCredential(credential, 'signInWithCredential');
  return auth._signIn('/api/auth/signin', { email, password });
}

/** `user.getIdToken(forceRefresh)` as a function, as in Firebase. */
export function getIdToken(user, forceRefresh = false) {
  return user.getIdToken(forceRefresh);
}

/** `user.getIdTokenResult(forceRefresh)`: the token, its claims, and its times as UTC date strings. */
export function getIdTokenResult(user, forceRefresh = false) {
  return user.getIdTokenResult(forceRefresh);
}

/** `user.reload()` as a function: reads the account again. */
export function reload(user) {
  return user.reload();
}

/**
 * Firebase's direct address change, which Firebase itself refuses (`auth/operation-not-allowed`) when email
 * enumeration protection is on. Kura always confirms a new address first: use verifyBeforeUpdateEmail.
 */
export async function updateEmail(user, newEmail) {
  user._auth();
  throw new KuraError('auth/operation-not-allowed',
    `Kura changes an address only once the new one is confirmed: call verifyBeforeUpdateEmail(user, '${newEmail}')`, {
      serverCode: 'OPERATION_NOT_ALLOWED',
    });
}

/**
 * Resolves `[]` for every well-formed address, as Firebase does with email enumeration protection on (its
 * default): Kura never tells whether an address has an account. A malformed address is `auth/invalid-email`.
 */
export async function fetchSignInMethodsForEmail(auth, email) {
  if (typeof email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw new KuraError('auth/invalid-email', 'the email address is badly formatted', { serverCode: 'INVALID_EMAIL' });
  }
  return [];
}

/**
 * Points the app at the Kura server at `url` (Firebase's emulator call, here for any Kura URL): account calls,
 * data, listeners and the offline cache all go there. Call it before signing in and before adding listeners.
 */
export function connectAuthEmulator(auth, url, options = {}) {
  if (typeof url !== 'string' || !/^https?:\/\/[^/]+/.test(url)) {
    throw new KuraError('auth/invalid-emulator-scheme', 'connectAuthEmulator needs a URL like http://127.0.0.1:8080');
  }
  retarget(auth.app, url);
}

/** Points the app at the Kura server on `host`:`port` (plain HTTP, as Firebase's emulator; `ssl: true` for HTTPS). */
export function connectFirestoreEmulator(db, host, port, options = {}) {
  if (typeof host !== 'string' || !host || !Number.isInteger(Number(port))) {
    throw invalidArgument('connectFirestoreEmulator needs a host and a port');
  }
  if (options.mockUserToken) throw invalidArgument('mockUserToken is not supported: sign in with a real account');
  const name = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  retarget(db.app, `${options.ssl ? 'https' : 'http'}://${name}:${port}`);
}

function retarget(app, url) {
  url = url.replace(/\/+$/, '');
  if (app.options.url === url) return;
  const db = app._components.get('database');
  if (db?._hub.targets.size) {
    throw new KuraError('failed-precondition', 'connect…Emulator must be called before any listener is added');
  }
  app.options = Object.freeze({ ...app.options, url });
  app._transport.url = url;
  app._components.get('auth')?._retarget();
  db?._retarget();
}

let level = 'info';

/** Firebase's `setLogLevel`: `'silent'` keeps kura.js's own console messages (refused queued writes) quiet. */
export function setLogLevel(logLevel) {
  if (!['debug', 'verbose', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    throw invalidArgument(`setLogLevel takes debug, verbose, info, warn, error or silent (got ${logLevel})`);
  }
  level = logLevel;
}

/** Whether kura.js may log an error to the console (setLogLevel). */
export function logsErrors() {
  return level !== 'silent';
}
