// Errors: one class, KuraError (a FirebaseError), carrying Firebase's error codes (`auth/email-already-in-use`, `permission-denied`,
// …) mapped from Kura's server codes (docs/api.md, "Error codes"), plus the server's own code and HTTP status.

/** Kura's server codes → Firebase Auth's codes, for the account calls. */
const AUTH_CODES = {
  EMAIL_EXISTS: 'auth/email-already-in-use',
  INVALID_EMAIL: 'auth/invalid-email',
  WEAK_PASSWORD: 'auth/weak-password',
  MISSING_PASSWORD: 'auth/missing-password',
  INVALID_LOGIN_CREDENTIALS: 'auth/invalid-credential',
  INVALID_OOB_CODE: 'auth/invalid-action-code',
  EXPIRED_OOB_CODE: 'auth/expired-action-code',
  INVALID_CONTINUE_URI: 'auth/invalid-continue-uri',
  UNAUTHORIZED_DOMAIN: 'auth/unauthorized-continue-uri',
  INVALID_REFRESH_TOKEN: 'auth/user-token-expired',
  INVALID_ID_TOKEN: 'auth/invalid-user-token',
  TOKEN_EXPIRED: 'auth/user-token-expired',
  UNAUTHENTICATED: 'auth/user-token-expired',
  CREDENTIAL_TOO_OLD_LOGIN_AGAIN: 'auth/requires-recent-login',
  USER_DISABLED: 'auth/user-disabled',
  EMAIL_NOT_VERIFIED: 'auth/unverified-email',
  USER_NOT_FOUND: 'auth/user-not-found',
  TOO_MANY_ATTEMPTS_TRY_LATER: 'auth/too-many-requests',
  INVALID_CLAIMS: 'auth/invalid-claims',
  INVALID_ARGUMENT: 'auth/argument-error',
  UNAVAILABLE: 'auth/network-request-failed',
};

/** Kura's server codes → Firestore's codes, for everything else. */
const DATA_CODES = {
  PERMISSION_DENIED: 'permission-denied',
  // An unverified caller under auth.requireVerifiedEmail: the data is refused to this user, as rules refuse it.
  EMAIL_NOT_VERIFIED: 'permission-denied',
  NOT_FOUND: 'not-found',
  ALREADY_EXISTS: 'already-exists',
  FAILED_PRECONDITION: 'failed-precondition',
  ABORTED: 'aborted',
  INVALID_ARGUMENT: 'invalid-argument',
  INVALID_PATH: 'invalid-argument',
  INVALID_QUERY: 'invalid-argument',
  MALFORMED_REQUEST: 'invalid-argument',
  DOCUMENT_TOO_LARGE: 'invalid-argument',
  PAYLOAD_TOO_LARGE: 'invalid-argument',
  UNAUTHENTICATED: 'unauthenticated',
  INVALID_ID_TOKEN: 'unauthenticated',
  TOKEN_EXPIRED: 'unauthenticated',
  INVALID_REFRESH_TOKEN: 'unauthenticated',
  RESOURCE_EXHAUSTED: 'resource-exhausted',
  TOO_MANY_ATTEMPTS_TRY_LATER: 'resource-exhausted',
  UNAVAILABLE: 'unavailable',
  INSUFFICIENT_STORAGE: 'resource-exhausted',
  INVALID_CONTINUE_URI: 'invalid-argument',
  UNAUTHORIZED_DOMAIN: 'invalid-argument',
  REQUEST_TIMEOUT: 'deadline-exceeded',
  INTERNAL: 'internal',
  CANCELLED: 'cancelled',
  INVALID_RULES: 'invalid-argument',
  INVALID_CLAIMS: 'invalid-argument',
  EMAIL_EXISTS: 'already-exists',
  INVALID_EMAIL: 'invalid-argument',
  WEAK_PASSWORD: 'invalid-argument',
  MISSING_PASSWORD: 'invalid-argument',
  INVALID_LOGIN_CREDENTIALS: 'unauthenticated',
  INVALID_OOB_CODE: 'invalid-argument',
  EXPIRED_OOB_CODE: 'invalid-argument',
  CREDENTIAL_TOO_OLD_LOGIN_AGAIN: 'unauthenticated',
  USER_DISABLED: 'permission-denied',
  USER_NOT_FOUND: 'not-found',
  ORIGIN_NOT_ALLOWED: 'permission-denied',
  // The last event of a listen stream whose client fell behind; the SDK resumes the stream.
  OVERFLOW: 'resource-exhausted',
  METHOD_NOT_ALLOWED: 'unimplemented',
  NOT_IMPLEMENTED: 'unimplemented',
  HTTP_VERSION_NOT_SUPPORTED: 'unimplemented',
  EXPECTATION_FAILED: 'failed-precondition',
  HEADERS_TOO_LARGE: 'invalid-argument',
};

/** Firebase's base error class: `name` 'FirebaseError', `code`, `message`, `customData`. */
export class FirebaseError extends Error {
  constructor(code, message, customData) {
    super(message);
    this.name = 'FirebaseError';
    this.code = code;
    this.customData = customData;
  }
}

/**
 * An error from Kura or from the SDK, shaped as Firebase's (`name` 'FirebaseError'): `code` is Firebase's spelling,
 * `serverCode` Kura's (docs/api.md). An account call's message reads as Firebase Auth's,
 * `Firebase: <sentence> (auth/<code>).`
 */
export class KuraError extends FirebaseError {
  /**
   * @param {string} code Firebase's code, e.g. `permission-denied`, `auth/invalid-credential`.
   * @param {string} message for people.
   * @param {{serverCode?: string, status?: number, retryAfter?: number, network?: boolean}} [details]
   */
  constructor(code, message, details = {}) {
    const text = code.startsWith('auth/') && !String(message).startsWith('Firebase: ')
      ? `Firebase: ${String(message).replace(/\.$/, '')} (${code}).` : message;
    super(code, text, { serverCode: details.serverCode ?? null, status: details.status ?? null });
    this.serverCode = details.serverCode ?? null;
    this.status = details.status ?? null;
    this.retryAfter = details.retryAfter ?? null;
    /** True when the server could not be reached at all (no answer). */
    this.network = details.network ?? false;
  }

  toString() {
    return this.code.startsWith('auth/') ? `${this.name}: ${this.message}` : `${this.name}: [code=${this.code}]: ${this.message}`;
  }
}

/** Firestore's error class: `error instanceof FirestoreError` holds for every error outside the account calls. */
export class FirestoreError extends KuraError {
  static [Symbol.hasInstance](value) {
    return value instanceof KuraError && !value.code.startsWith('auth/');
  }
}

/** An error for a Firebase name that needs a server feature Kura does not have. */
export function unimplemented(name, why) {
  return new KuraError('unimplemented', `${name} is not available with Kura: ${why}`, { serverCode: 'NOT_IMPLEMENTED' });
}

/** Firebase Auth's `AuthErrorCodes`: names → codes, for the codes apps compare with. */
export const AuthErrorCodes = Object.freeze({
  ADMIN_ONLY_OPERATION: 'auth/admin-restricted-operation',
  ARGUMENT_ERROR: 'auth/argument-error',
  CREDENTIAL_TOO_OLD_LOGIN_AGAIN: 'auth/requires-recent-login',
  EMAIL_EXISTS: 'auth/email-already-in-use',
  EXPIRED_OOB_CODE: 'auth/expired-action-code',
  INTERNAL_ERROR: 'auth/internal-error',
  INVALID_AUTH: 'auth/invalid-user-token',
  INVALID_CLAIMS: 'auth/invalid-claims',
  INVALID_EMAIL: 'auth/invalid-email',
  INVALID_IDP_RESPONSE: 'auth/invalid-credential',
  INVALID_LOGIN_CREDENTIALS: 'auth/invalid-credential',
  INVALID_OOB_CODE: 'auth/invalid-action-code',
  INVALID_PASSWORD: 'auth/wrong-password',
  MISSING_PASSWORD: 'auth/missing-password',
  NETWORK_REQUEST_FAILED: 'auth/network-request-failed',
  NO_SUCH_PROVIDER: 'auth/no-such-provider',
  OPERATION_NOT_ALLOWED: 'auth/operation-not-allowed',
  POPUP_BLOCKED: 'auth/popup-blocked',
  POPUP_CLOSED_BY_USER: 'auth/popup-closed-by-user',
  TIMEOUT: 'auth/timeout',
  TOKEN_EXPIRED: 'auth/user-token-expired',
  TOO_MANY_ATTEMPTS_TRY_LATER: 'auth/too-many-requests',
  UNVERIFIED_EMAIL: 'auth/unverified-email',
  USER_CANCELLED: 'auth/user-cancelled',
  USER_DELETED: 'auth/user-not-found',
  USER_DISABLED: 'auth/user-disabled',
  USER_MISMATCH: 'auth/user-mismatch',
  USER_SIGNED_OUT: 'auth/user-signed-out',
  WEAK_PASSWORD: 'auth/weak-password',
});

/** The error for a server answer `{error:{code,message}}` with `status`, in the data (Firestore) vocabulary. */
export function serverError(serverCode, message, status, retryAfter) {
  const code = DATA_CODES[serverCode] ?? (status >= 500 ? 'unavailable' : 'unknown');
  return new KuraError(code, message || serverCode, { serverCode, status, retryAfter });
}

/** The server could not be reached (offline, refused, timed out). */
export function networkError(cause) {
  const error = new KuraError('unavailable', `the server cannot be reached: ${cause?.message ?? cause}`, {
    serverCode: 'UNAVAILABLE',
    network: true,
  });
  error.cause = cause;
  return error;
}

/** `error` in Firebase Auth's vocabulary (`auth/…`), for the account calls. */
export function authError(error) {
  if (!(error instanceof KuraError) || error.code.startsWith('auth/')) return error;
  const code = AUTH_CODES[error.serverCode] ?? (error.network ? 'auth/network-request-failed' : 'auth/internal-error');
  const mapped = new KuraError(code, error.message.replace(/^Firebase: (.*) \([^()]*\)\.$/, '$1'), error);
  mapped.cause = error.cause;
  return mapped;
}

/** Whether `error` says the server rejected the ID token (expired, revoked, invalid): refresh and retry. */
export function isTokenRejection(error) {
  return (
    error instanceof KuraError &&
    error.status === 401 &&
    ['UNAUTHENTICATED', 'INVALID_ID_TOKEN', 'TOKEN_EXPIRED'].includes(error.serverCode)
  );
}

/** Errors worth retrying later: no answer, 503, 5xx, rate limits. */
export function isTransient(error) {
  return (
    error instanceof KuraError &&
    (error.network || error.code === 'unavailable' || error.code === 'internal' ||
      error.serverCode === 'TOO_MANY_ATTEMPTS_TRY_LATER' || error.code === 'deadline-exceeded' ||
      (error.status ?? 0) >= 500)
  );
}

/** A client-side mistake (bad path, bad argument). */
export function invalidArgument(message) {
  return new KuraError('invalid-argument', message, { serverCode: 'INVALID_ARGUMENT' });
}
