// Account calls: Firebase Auth's modular functions (sign-up, sign-in, sign-out, observers, mails, profile changes).

import { authError, isTokenRejection, isTransient, KuraError } from './errors.js';
import { readShared, writeShared } from './session.js';

/** How long after a sign-up that mailed a verification link the first sendEmailVerification sends nothing. */
const SIGN_UP_MAIL_WINDOW_MS = 10 * 60 * 1000;

/** Signs up and signs in; `auth/email-already-in-use`, `auth/invalid-email`, `auth/weak-password`. */
export function createUserWithEmailAndPassword(auth, email, password) {
  return auth._signIn('/api/auth/signup', { email, password });
}

/** Signs in; `auth/invalid-credential` for an unknown address and a wrong password alike. */
export function signInWithEmailAndPassword(auth, email, password) {
  return auth._signIn('/api/auth/signin', { email, password });
}

/**
 * Signs out here and in the app's other tabs, and revokes the session on the server. Observers see `null` at once
 * (as in Firebase); the promise resolves once the server has revoked the session, so that from then on its ID
 * tokens and refresh token are refused. When the server cannot revoke it (unreachable, or failing after a few
 * tries), the session is still forgotten here and the promise rejects (`auth/network-request-failed`, …) saying
 * that the server did not revoke it.
 */
export async function signOut(auth) {
  // A refresh under way finishes first, so that the tokens presented are the newest.
  await auth._refreshing?.catch(() => {});
  let session = auth._session;
  auth._setSession(null);
  if (auth._persistence === 'local') {
    // Another tab may hold newer tokens of the same session (it refreshed last): the stored copy has them.
    const stored = await readShared(auth._key);
    if (session && stored?.sid && stored.sid === session.sid) session = stored;
    await writeShared(auth._key, null);
  }
  if (!session) return;
  await revokeSession(auth, session);
}

/** POST /api/auth/signout for `session`; resolves once the server revoked it (or it was no longer valid). */
async function revokeSession(auth, session) {
  const transport = auth.app._transport;
  let token = session.idToken;
  let refreshed = false;
  let failures = 0;
  while (true) {
    let failure;
    try {
      await transport.send('POST', '/api/auth/signout', { body: {}, token });
      return;
    } catch (error) {
      failure = error;
    }
    if (isTokenRejection(failure) && !refreshed) {
      // The ID token expired (or was already revoked): a fresh one of the same session revokes it. A refresh
      // token the server refuses belongs to a session that is already revoked (or an account that is gone).
      refreshed = true;
      try {
        const { body } = await transport.send('POST', '/api/auth/refresh', { body: { refreshToken: session.refreshToken } });
        token = body.idToken;
        continue;
      } catch (error) {
        if (!isTransient(error)) return;
        failure = error;
      }
    }
    if (['USER_DISABLED', 'USER_NOT_FOUND'].includes(failure.serverCode)) return;
    if (isTransient(failure) && ++failures < 4) {
      await new Promise((resolve) => setTimeout(resolve, (failure.retryAfter ?? 0) * 1000 || 200 * 2 ** failures));
      continue;
    }
    const error = authError(failure);
    const refused = new KuraError(error.code,
      `signed out on this device, but the server did not revoke the session: ${failure.message}`, error);
    refused.cause = failure;
    throw refused;
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

/**
 * Mails a verification link to the user's address. The first call within 10 minutes after
 * `createUserWithEmailAndPassword` sends nothing when the server already mailed a link at sign-up (its answer says
 * `verificationSent`), so an app that calls this right after sign-up mails one link, not two; later calls send.
 */
export async function sendEmailVerification(user, actionCodeSettings) {
  const auth = user._auth();
  const record = auth._signUpVerification;
  auth._signUpVerification = null;
  const now = globalThis.performance?.now() ?? Date.now();
  if (record && record.uid === user.uid && now - record.at < SIGN_UP_MAIL_WINDOW_MS) return;
  try {
    await user._auth()._call('POST', '/api/auth/verify-email', { body: continueBody({}, actionCodeSettings) });
  } catch (error) {
    throw authError(error);
  }
}

/**
 * Mails a password-reset link; succeeds for unknown addresses too (no account enumeration). With
 * `actionCodeSettings.url`, the action page leads back there afterwards (an origin the server allows: its own, or
 * one `cors.origins` lists; others are refused with `auth/unauthorized-continue-uri`).
 */
export async function sendPasswordResetEmail(auth, email, actionCodeSettings) {
  try {
    await auth.app._transport.send('POST', '/api/auth/password-reset', {
      body: continueBody({ email }, actionCodeSettings),
    });
  } catch (error) {
    throw authError(error);
  }
}

/** `body` with `continueUrl` from Firebase's `ActionCodeSettings` (`{url}`), when given. */
function continueBody(body, actionCodeSettings) {
  if (actionCodeSettings?.url) body.continueUrl = String(actionCodeSettings.url);
  return body;
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

/**
 * What a code from a mail link does, without spending it (Firebase's `checkActionCode`):
 * `{operation: 'VERIFY_EMAIL' | 'PASSWORD_RESET' | 'VERIFY_AND_CHANGE_EMAIL', data: {email, previousEmail}}`.
 * A code the confirm call would refuse is refused the same way (`auth/invalid-action-code`, …).
 */
export async function checkActionCode(auth, code) {
  try {
    const { body } = await auth.app._transport.send('POST', '/api/auth/action-code/check', { body: { code } });
    return { operation: body.operation, data: { email: body.email ?? null, previousEmail: body.previousEmail ?? null } };
  } catch (error) {
    throw authError(error);
  }
}

/** The address a password-reset code belongs to, without spending it (Firebase's `verifyPasswordResetCode`). */
export async function verifyPasswordResetCode(auth, code) {
  const info = await checkActionCode(auth, code);
  if (info.operation !== 'PASSWORD_RESET') {
    throw new KuraError('auth/invalid-action-code', 'the code is not a password-reset code', {
      serverCode: 'INVALID_OOB_CODE',
      status: 400,
    });
  }
  return info.data.email;
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
