// kura.js: the browser SDK for Kura, with the names and behaviour of Firebase's modular web API
// (docs/web-sdk.md). Plain ES modules, no dependencies, no DOM access (it runs in workers too). This file is the
// public surface; each concern lives in its own module next to it.
//
//   import { initializeApp, getAuth, getDatabase, doc, getDoc } from '/sdk/kura.js';

export { initializeApp, getApp, getApps, deleteApp, KuraApp } from './app.js';
export {
  getAuth, Auth, User, browserLocalPersistence, browserSessionPersistence, inMemoryPersistence,
} from './auth.js';
export {
  createUserWithEmailAndPassword, signInWithEmailAndPassword, signOut,
  sendEmailVerification, sendPasswordResetEmail, applyActionCode, confirmPasswordReset,
  checkActionCode, verifyPasswordResetCode,
  updateProfile, updatePassword, verifyBeforeUpdateEmail, deleteUser,
  onAuthStateChanged, onIdTokenChanged, setPersistence,
} from './accounts.js';
export { getDatabase, getFirestore, initializeFirestore, Database } from './database.js';
export {
  collection, collectionGroup, doc, refEqual,
  Query, CollectionReference, DocumentReference,
  DocumentSnapshot, QueryDocumentSnapshot, QuerySnapshot, SnapshotMetadata,
} from './references.js';
export {
  query, where, orderBy, limit, limitToLast, startAt, startAfter, endAt, endBefore, QueryConstraint,
  or, and, QueryFieldFilterConstraint, QueryCompositeFilterConstraint,
} from './query.js';
export {
  getAggregateFromServer, count, sum, average, aggregateFieldEqual, AggregateField, AggregateQuerySnapshot,
} from './aggregates.js';
export {
  getDoc, getDocFromCache, getDocFromServer, getDocs, getDocsFromCache, getDocsFromServer, getCountFromServer,
  setDoc, addDoc, updateDoc, deleteDoc, writeBatch, WriteBatch, runTransaction, Transaction,
  waitForPendingWrites, getPendingWriteCount, onWriteError,
} from './documents.js';
export {
  serverTimestamp, increment, arrayUnion, arrayRemove, deleteField, FieldValue, FieldPath, documentId,
} from './values.js';
export { onSnapshot } from './listeners.js';

// Firebase's names beyond the core calls: value types, errors, cache and network controls, equality, credentials
// and account functions, and the names that need server features Kura lacks (they throw `unimplemented`).
export { KuraError, FirebaseError, FirestoreError, AuthErrorCodes } from './errors.js';
export { Timestamp, GeoPoint, Bytes } from './types.js';
export { queryEqual, snapshotEqual } from './references.js';
export {
  CACHE_SIZE_UNLIMITED, memoryLocalCache, memoryEagerGarbageCollector, memoryLruGarbageCollector,
  persistentLocalCache, persistentSingleTabManager, persistentMultipleTabManager,
  enableIndexedDbPersistence, enableMultiTabIndexedDbPersistence, clearIndexedDbPersistence,
  enableNetwork, disableNetwork, terminate, onSnapshotsInSync,
} from './cache.js';
export {
  EmailAuthProvider, EmailAuthCredential, reauthenticateWithCredential, signInWithCredential,
  getIdToken, getIdTokenResult, reload, updateEmail, fetchSignInMethodsForEmail,
  connectAuthEmulator, connectFirestoreEmulator, setLogLevel,
} from './credentials.js';
export {
  GoogleAuthProvider, GithubAuthProvider, FacebookAuthProvider, TwitterAuthProvider, OAuthProvider,
  SAMLAuthProvider, PhoneAuthProvider, RecaptchaVerifier,
  signInWithPopup, signInWithRedirect, getRedirectResult, linkWithPopup, linkWithRedirect,
  reauthenticateWithPopup, reauthenticateWithRedirect, linkWithCredential, unlink, signInAnonymously,
  signInWithCustomToken, sendSignInLinkToEmail, signInWithEmailLink, isSignInWithEmailLink,
  signInWithPhoneNumber, linkWithPhoneNumber, updatePhoneNumber, multiFactor, getMultiFactorResolver,
  loadBundle, namedQuery, setIndexConfiguration,
} from './unimplemented.js';
