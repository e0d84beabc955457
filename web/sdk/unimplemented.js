// Firebase names that need a server feature Kura does not have (OAuth and phone sign-in, anonymous and email-link
// sign-in, multi-factor, custom tokens, bundles). They are exported so that a Firebase app loads unchanged; each
// throws `unimplemented` with a sentence when called, so a port fails at the call, not at load.

import { unimplemented } from './errors.js';

const OAUTH = 'Kura signs in with email and password only: it has no OAuth identity providers';
const NO_ANONYMOUS = 'Kura has no anonymous accounts: sign up with email and password';
const NO_LINKS = 'Kura has no email-link (passwordless) sign-in: use email and password';
const NO_PHONE = 'Kura has no phone-number sign-in';
const NO_MFA = 'Kura has no multi-factor authentication';
const NO_BUNDLES = 'Kura has no data bundles: read with getDocs or listen with onSnapshot';

function failing(name, why) {
  const call = () => {
    throw unimplemented(name, why);
  };
  Object.defineProperty(call, 'name', { value: name });
  return call;
}

/** A provider class whose constructor and static methods throw `unimplemented`. */
function provider(name, why) {
  const Provider = class {
    constructor() {
      throw unimplemented(`new ${name}()`, why);
    }
    static credential() {
      throw unimplemented(`${name}.credential`, why);
    }
    static credentialFromResult() {
      throw unimplemented(`${name}.credentialFromResult`, why);
    }
    static credentialFromError() {
      throw unimplemented(`${name}.credentialFromError`, why);
    }
  };
  Object.defineProperty(Provider, 'name', { value: name });
  return Provider;
}

export const GoogleAuthProvider = provider('GoogleAuthProvider', OAUTH);
export const GithubAuthProvider = provider('GithubAuthProvider', OAUTH);
export const FacebookAuthProvider = provider('FacebookAuthProvider', OAUTH);
export const TwitterAuthProvider = provider('TwitterAuthProvider', OAUTH);
export const OAuthProvider = provider('OAuthProvider', OAUTH);
export const SAMLAuthProvider = provider('SAMLAuthProvider', OAUTH);
export const PhoneAuthProvider = provider('PhoneAuthProvider', NO_PHONE);
export const RecaptchaVerifier = provider('RecaptchaVerifier', NO_PHONE);

export const signInWithPopup = failing('signInWithPopup', OAUTH);
export const signInWithRedirect = failing('signInWithRedirect', OAUTH);
export const getRedirectResult = failing('getRedirectResult', OAUTH);
export const linkWithPopup = failing('linkWithPopup', OAUTH);
export const linkWithRedirect = failing('linkWithRedirect', OAUTH);
export const reauthenticateWithPopup = failing('reauthenticateWithPopup', OAUTH);
export const reauthenticateWithRedirect = failing('reauthenticateWithRedirect', OAUTH);
export const linkWithCredential = failing('linkWithCredential', `${OAUTH}, so there is nothing to link`);
export const unlink = failing('unlink', `${OAUTH}, so there is nothing to unlink`);
export const signInAnonymously = failing('signInAnonymously', NO_ANONYMOUS);
export const signInWithCustomToken = failing('signInWithCustomToken',
  'Kura\'s browser SDK signs in with email and password only (custom tokens are not supported)');
export const sendSignInLinkToEmail = failing('sendSignInLinkToEmail', NO_LINKS);
export const signInWithEmailLink = failing('signInWithEmailLink', NO_LINKS);
export const signInWithPhoneNumber = failing('signInWithPhoneNumber', NO_PHONE);
export const linkWithPhoneNumber = failing('linkWithPhoneNumber', NO_PHONE);
export const updatePhoneNumber = failing('updatePhoneNumber', NO_PHONE);
export const multiFactor = failing('multiFactor', NO_MFA);
export const getMultiFactorResolver = failing('getMultiFactorResolver', NO_MFA);

/** Never a Kura sign-in link (Kura has no email-link sign-in): false, so an app's start-up check goes on. */
export function isSignInWithEmailLink() {
  return false;
}

export const loadBundle = failing('loadBundle', NO_BUNDLES);
export const namedQuery = failing('namedQuery', NO_BUNDLES);
export const setIndexConfiguration = failing('setIndexConfiguration',
  'Kura\'s offline cache has no indexes to configure; server indexes are declared on the server (docs/api.md)');
