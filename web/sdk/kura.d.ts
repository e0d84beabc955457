// Type declarations for kura.js, the browser SDK for Kura (docs/web-sdk.md). Firebase's modular web API shapes.

// Apps

export interface KuraOptions {
  /** The server's base URL; defaults to the page's origin. */
  url?: string;
  /** Where the signed-in session is kept (default `'local'`: localStorage, shared by the app's tabs). */
  authPersistence?: Persistence;
  /** `'indexeddb'`: the offline cache and write queue. Default: none (every read and write goes to the server). */
  persistence?: 'indexeddb' | 'none';
  /** A request taking longer fails with `unavailable` (default 30000). */
  requestTimeoutMs?: number;
  /** With persistence: where queued writes leave their receipts (default `users/{uid}/_kura_receipts`); null: none. */
  writeReceipts?: string | null;
}

export declare class KuraApp {
  readonly name: string;
  readonly options: Readonly<KuraOptions & { url: string }>;
}
export declare function initializeApp(options?: KuraOptions, name?: string): KuraApp;
export declare function getApp(name?: string): KuraApp;
export declare function getApps(): KuraApp[];
export declare function deleteApp(app: KuraApp): Promise<void>;

// Errors

/** Firebase's base error: `name` is `'FirebaseError'`. */
export declare class FirebaseError extends Error {
  readonly name: 'FirebaseError';
  readonly code: string;
  readonly customData?: Record<string, unknown>;
}
/**
 * `code` is Firebase's (`auth/invalid-credential`, `permission-denied`…); `serverCode` Kura's (docs/api.md). An account
 * call's message reads `Firebase: <sentence> (auth/<code>).`
 */
export declare class KuraError extends FirebaseError {
  readonly serverCode: string | null;
  readonly status: number | null;
  /** Seconds, from `Retry-After` on 429 answers. */
  readonly retryAfter: number | null;
  /** The server could not be reached at all. */
  readonly network: boolean;
  readonly customData: { serverCode: string | null; status: number | null };
}
/** `error instanceof FirestoreError` holds for every error outside the account calls. */
export declare class FirestoreError extends KuraError {}
export declare const AuthErrorCodes: {
  readonly ADMIN_ONLY_OPERATION: 'auth/admin-restricted-operation';
  readonly ARGUMENT_ERROR: 'auth/argument-error';
  readonly CREDENTIAL_TOO_OLD_LOGIN_AGAIN: 'auth/requires-recent-login';
  readonly EMAIL_EXISTS: 'auth/email-already-in-use';
  readonly EXPIRED_OOB_CODE: 'auth/expired-action-code';
  readonly INTERNAL_ERROR: 'auth/internal-error';
  readonly INVALID_AUTH: 'auth/invalid-user-token';
  readonly INVALID_CLAIMS: 'auth/invalid-claims';
  readonly INVALID_EMAIL: 'auth/invalid-email';
  readonly INVALID_IDP_RESPONSE: 'auth/invalid-credential';
  readonly INVALID_LOGIN_CREDENTIALS: 'auth/invalid-credential';
  readonly INVALID_OOB_CODE: 'auth/invalid-action-code';
  readonly INVALID_PASSWORD: 'auth/wrong-password';
  readonly MISSING_PASSWORD: 'auth/missing-password';
  readonly NETWORK_REQUEST_FAILED: 'auth/network-request-failed';
  readonly NO_SUCH_PROVIDER: 'auth/no-such-provider';
  readonly OPERATION_NOT_ALLOWED: 'auth/operation-not-allowed';
  readonly POPUP_BLOCKED: 'auth/popup-blocked';
  readonly POPUP_CLOSED_BY_USER: 'auth/popup-closed-by-user';
  readonly TIMEOUT: 'auth/timeout';
  readonly TOKEN_EXPIRED: 'auth/user-token-expired';
  readonly TOO_MANY_ATTEMPTS_TRY_LATER: 'auth/too-many-requests';
  readonly UNVERIFIED_EMAIL: 'auth/unverified-email';
  readonly USER_CANCELLED: 'auth/user-cancelled';
  readonly USER_DELETED: 'auth/user-not-found';
  readonly USER_DISABLED: 'auth/user-disabled';
  readonly USER_MISMATCH: 'auth/user-mismatch';
  readonly USER_SIGNED_OUT: 'auth/user-signed-out';
  readonly WEAK_PASSWORD: 'auth/weak-password';
};

// Accounts

export type Persistence = 'local' | 'session' | 'memory';
export declare const browserLocalPersistence: 'local';
export declare const browserSessionPersistence: 'session';
export declare const inMemoryPersistence: 'memory';

export interface IdTokenResult {
  token: string;
  claims: Record<string, unknown> & { sub: string; exp: number; iat: number; email?: string };
  expirationTime: string;
  issuedAtTime: string;
  authTime: string;
  signInProvider: 'password';
  signInSecondFactor: null;
}

export declare class User {
  readonly uid: string;
  readonly email: string | null;
  readonly emailVerified: boolean;
  readonly displayName: string | null;
  readonly disabled: boolean;
  readonly customClaims: Record<string, unknown>;
  /** UTC date strings (`Date.prototype.toUTCString`), as Firebase's: the account's creation and this sign-in. */
  readonly metadata: { creationTime: string | null; lastSignInTime: string | null };
  readonly providerId: 'firebase';
  readonly isAnonymous: false;
  readonly photoURL: null;
  readonly phoneNumber: null;
  getIdToken(forceRefresh?: boolean): Promise<string>;
  getIdTokenResult(forceRefresh?: boolean): Promise<IdTokenResult>;
  reload(): Promise<void>;
  toJSON(): object;
}

export interface UserCredential {
  user: User;
  providerId: null;
  operationType: 'signIn';
}

export declare class Auth {
  readonly app: KuraApp;
  readonly name: string;
  readonly currentUser: User | null;
  languageCode: string | null;
  authStateReady(): Promise<void>;
}

export type Unsubscribe = () => void;

export declare function getAuth(app?: KuraApp): Auth;
export declare function createUserWithEmailAndPassword(auth: Auth, email: string, password: string): Promise<UserCredential>;
export declare function signInWithEmailAndPassword(auth: Auth, email: string, password: string): Promise<UserCredential>;
export declare function signOut(auth: Auth): Promise<void>;
export declare function onAuthStateChanged(
  auth: Auth, next: ((user: User | null) => void) | { next: (user: User | null) => void }): Unsubscribe;
export declare const onIdTokenChanged: typeof onAuthStateChanged;
export declare function setPersistence(auth: Auth, persistence: Persistence): Promise<void>;
/** Firebase's `ActionCodeSettings`: `url` is where the action page leads back to (an origin the server allows). */
export interface ActionCodeSettings { url: string; handleCodeInApp?: boolean; }
export declare function sendEmailVerification(user: User, actionCodeSettings?: ActionCodeSettings | null): Promise<void>;
export declare function sendPasswordResetEmail(auth: Auth, email: string, actionCodeSettings?: ActionCodeSettings | null): Promise<void>;
export declare function applyActionCode(auth: Auth, code: string): Promise<void>;
export declare function confirmPasswordReset(auth: Auth, code: string, newPassword: string): Promise<void>;
export interface ActionCodeInfo {
  operation: 'VERIFY_EMAIL' | 'PASSWORD_RESET' | 'VERIFY_AND_CHANGE_EMAIL';
  data: { email: string | null; previousEmail: string | null };
}
export declare function checkActionCode(auth: Auth, code: string): Promise<ActionCodeInfo>;
export declare function verifyPasswordResetCode(auth: Auth, code: string): Promise<string>;
export declare function updateProfile(user: User, profile: { displayName?: string | null }): Promise<void>;
export declare function updatePassword(user: User, newPassword: string): Promise<void>;
export declare function verifyBeforeUpdateEmail(user: User, newEmail: string): Promise<void>;
export declare function deleteUser(user: User): Promise<void>;

// Data

export type DocumentData = { [field: string]: any };
export type WhereFilterOp = '<' | '<=' | '==' | '!=' | '>=' | '>' | 'array-contains' | 'in' | 'not-in' | 'array-contains-any';
export type OrderByDirection = 'asc' | 'desc';

export interface FirestoreDataConverter<T> {
  toFirestore(model: T, options?: SetOptions): DocumentData;
  fromFirestore(snapshot: QueryDocumentSnapshot<DocumentData>, options?: SnapshotOptions): T;
}

export declare class Database {
  readonly app: KuraApp;
  readonly type: 'firestore';
}
export declare function getDatabase(app?: KuraApp, settings?: FirestoreSettings): Database;
export declare function getFirestore(app?: KuraApp, databaseId?: '(default)'): Database;
export declare function getFirestore(databaseId: '(default)'): Database;
export declare function initializeFirestore(app: KuraApp, settings: FirestoreSettings, databaseId?: '(default)'): Database;

export declare class Query<T = DocumentData> {
  readonly firestore: Database;
  readonly type: 'query' | 'collection';
  readonly converter: FirestoreDataConverter<T> | null;
  withConverter<U>(converter: FirestoreDataConverter<U>): Query<U>;
}
export declare class CollectionReference<T = DocumentData> extends Query<T> {
  readonly type: 'collection';
  readonly id: string;
  readonly path: string;
  readonly parent: DocumentReference<DocumentData> | null;
  withConverter<U>(converter: FirestoreDataConverter<U>): CollectionReference<U>;
}
export declare class DocumentReference<T = DocumentData> {
  readonly firestore: Database;
  readonly type: 'document';
  readonly id: string;
  readonly path: string;
  readonly parent: CollectionReference<T>;
  readonly converter: FirestoreDataConverter<T> | null;
  withConverter<U>(converter: FirestoreDataConverter<U>): DocumentReference<U>;
}

export declare function collection(parent: Database | DocumentReference<any>, path: string, ...pathSegments: string[]): CollectionReference;
export declare function collectionGroup(db: Database, collectionId: string): Query;
export declare function doc(parent: Database | DocumentReference<any>, path: string, ...pathSegments: string[]): DocumentReference;
export declare function doc<T>(parent: CollectionReference<T>, path?: string, ...pathSegments: string[]): DocumentReference<T>;
export declare function refEqual(a: DocumentReference<any> | CollectionReference<any>, b: DocumentReference<any> | CollectionReference<any>): boolean;

export declare class SnapshotMetadata {
  readonly hasPendingWrites: boolean;
  readonly fromCache: boolean;
  isEqual(other: SnapshotMetadata): boolean;
}
export declare class DocumentSnapshot<T = DocumentData> {
  readonly id: string;
  readonly ref: DocumentReference<T>;
  readonly metadata: SnapshotMetadata;
  /** RFC 3339 times and the version (1 on creation, +1 per write); null when the document does not exist. */
  readonly createTime: string | null;
  readonly updateTime: string | null;
  readonly version: number | null;
  exists(): this is QueryDocumentSnapshot<T>;
  data(options?: SnapshotOptions): T | undefined;
  get(field: string | FieldPath, options?: SnapshotOptions): any;
}
export declare class QueryDocumentSnapshot<T = DocumentData> extends DocumentSnapshot<T> {
  data(options?: SnapshotOptions): T;
}
/** How a server timestamp still pending reads: `'none'` (null, the default), `'estimate'`, `'previous'`. */
export interface SnapshotOptions {
  serverTimestamps?: 'estimate' | 'previous' | 'none';
}
export interface DocumentChange<T = DocumentData> {
  readonly type: 'added' | 'modified' | 'removed';
  readonly doc: QueryDocumentSnapshot<T>;
  /** -1 for `added`. */
  readonly oldIndex: number;
  /** -1 for `removed`. */
  readonly newIndex: number;
}
export declare class QuerySnapshot<T = DocumentData> {
  readonly query: Query<T>;
  readonly metadata: SnapshotMetadata;
  readonly docs: Array<QueryDocumentSnapshot<T>>;
  readonly size: number;
  readonly empty: boolean;
  forEach(callback: (snapshot: QueryDocumentSnapshot<T>) => void, thisArg?: unknown): void;
  docChanges(): Array<DocumentChange<T>>;
}

export declare class QueryConstraint {
  readonly type: string;
}
export declare function query<T>(query: Query<T>, ...constraints: QueryConstraint[]): Query<T>;
export declare function where(field: string | FieldPath, op: WhereFilterOp, value: unknown): QueryFieldFilterConstraint;
export declare class QueryFieldFilterConstraint extends QueryConstraint {
  readonly type: 'where';
}
export declare class QueryCompositeFilterConstraint extends QueryConstraint {
  readonly type: 'or' | 'and';
}
export type QueryFilterConstraint = QueryFieldFilterConstraint | QueryCompositeFilterConstraint;
export declare function or(...queryConstraints: QueryFilterConstraint[]): QueryCompositeFilterConstraint;
export declare function and(...queryConstraints: QueryFilterConstraint[]): QueryCompositeFilterConstraint;
export declare function orderBy(field: string | FieldPath, direction?: OrderByDirection): QueryConstraint;
export declare function limit(n: number): QueryConstraint;
export declare function limitToLast(n: number): QueryConstraint;
export declare function startAt(...values: unknown[]): QueryConstraint;
export declare function startAfter(...values: unknown[]): QueryConstraint;
export declare function endAt(...values: unknown[]): QueryConstraint;
export declare function endBefore(...values: unknown[]): QueryConstraint;

export interface SetOptions {
  merge?: boolean;
}
export type UpdateData = { [fieldPath: string]: any };

export declare function getDoc<T>(ref: DocumentReference<T>): Promise<DocumentSnapshot<T>>;
export declare function getDocFromCache<T>(ref: DocumentReference<T>): Promise<DocumentSnapshot<T>>;
export declare function getDocFromServer<T>(ref: DocumentReference<T>): Promise<DocumentSnapshot<T>>;
export declare function getDocs<T>(query: Query<T>): Promise<QuerySnapshot<T>>;
export declare function getDocsFromCache<T>(query: Query<T>): Promise<QuerySnapshot<T>>;
export declare function getDocsFromServer<T>(query: Query<T>): Promise<QuerySnapshot<T>>;
export declare function getCountFromServer(query: Query<any>): Promise<{ data(): { count: number } }>;

export type AggregateType = 'count' | 'sum' | 'avg';
export declare class AggregateField<T> {
  readonly type: 'AggregateField';
  readonly aggregateType: AggregateType;
  private _phantom?: T;
}
export type AggregateSpec = { [alias: string]: AggregateField<any> };
export type AggregateSpecData<T extends AggregateSpec> = {
  [P in keyof T]: T[P] extends AggregateField<infer U> ? U : never;
};
export declare function count(): AggregateField<number>;
export declare function sum(field: string | FieldPath): AggregateField<number>;
export declare function average(field: string | FieldPath): AggregateField<number | null>;
export declare function aggregateFieldEqual(left: AggregateField<unknown>, right: AggregateField<unknown>): boolean;
export declare class AggregateQuerySnapshot<T extends AggregateSpec> {
  readonly type: 'AggregateQuerySnapshot';
  readonly query: Query<any>;
  data(): AggregateSpecData<T>;
}
export declare function getAggregateFromServer<T extends AggregateSpec>(
  query: Query<any>, aggregateSpec: T,
): Promise<AggregateQuerySnapshot<T>>;
export declare function setDoc<T>(ref: DocumentReference<T>, data: T | DocumentData, options?: SetOptions): Promise<void>;
export declare function addDoc<T>(ref: CollectionReference<T>, data: T | DocumentData): Promise<DocumentReference<T>>;
export declare function updateDoc(ref: DocumentReference<any>, data: UpdateData): Promise<void>;
export declare function updateDoc(ref: DocumentReference<any>, field: string | FieldPath, value: unknown, ...moreFieldsAndValues: unknown[]): Promise<void>;
export declare function deleteDoc(ref: DocumentReference<any>): Promise<void>;

export declare class WriteBatch {
  set<T>(ref: DocumentReference<T>, data: T | DocumentData, options?: SetOptions): WriteBatch;
  update(ref: DocumentReference<any>, data: UpdateData): WriteBatch;
  update(ref: DocumentReference<any>, field: string | FieldPath, value: unknown, ...more: unknown[]): WriteBatch;
  delete(ref: DocumentReference<any>): WriteBatch;
  commit(): Promise<void>;
}
export declare function writeBatch(db: Database): WriteBatch;

export declare class Transaction {
  get<T>(ref: DocumentReference<T>): Promise<DocumentSnapshot<T>>;
  set<T>(ref: DocumentReference<T>, data: T | DocumentData, options?: SetOptions): Transaction;
  update(ref: DocumentReference<any>, data: UpdateData): Transaction;
  update(ref: DocumentReference<any>, field: string | FieldPath, value: unknown, ...more: unknown[]): Transaction;
  delete(ref: DocumentReference<any>): Transaction;
}
export declare function runTransaction<R>(db: Database, update: (transaction: Transaction) => Promise<R>,
  options?: { maxAttempts?: number }): Promise<R>;

export declare class FieldValue {
  isEqual(other: FieldValue): boolean;
}
export declare function serverTimestamp(): FieldValue;
export declare function increment(n: number): FieldValue;
export declare function arrayUnion(...elements: unknown[]): FieldValue;
export declare function arrayRemove(...elements: unknown[]): FieldValue;
export declare function deleteField(): FieldValue;
export declare class FieldPath {
  constructor(...fieldNames: string[]);
  isEqual(other: FieldPath): boolean;
}
export declare function documentId(): FieldPath;

// Listeners

export interface SnapshotListenOptions {
  includeMetadataChanges?: boolean;
}
export interface Observer<S> {
  next?: (snapshot: S) => void;
  error?: (error: KuraError) => void;
}
export declare function onSnapshot<T>(ref: DocumentReference<T>, next: (snapshot: DocumentSnapshot<T>) => void, error?: (error: KuraError) => void): Unsubscribe;
export declare function onSnapshot<T>(ref: DocumentReference<T>, options: SnapshotListenOptions, next: (snapshot: DocumentSnapshot<T>) => void, error?: (error: KuraError) => void): Unsubscribe;
export declare function onSnapshot<T>(ref: DocumentReference<T>, observer: Observer<DocumentSnapshot<T>>): Unsubscribe;
export declare function onSnapshot<T>(query: Query<T>, next: (snapshot: QuerySnapshot<T>) => void, error?: (error: KuraError) => void): Unsubscribe;
export declare function onSnapshot<T>(query: Query<T>, options: SnapshotListenOptions, next: (snapshot: QuerySnapshot<T>) => void, error?: (error: KuraError) => void): Unsubscribe;
export declare function onSnapshot<T>(query: Query<T>, observer: Observer<QuerySnapshot<T>>): Unsubscribe;

// The offline queue (persistence: 'indexeddb')

export declare function waitForPendingWrites(db: Database): Promise<void>;
export declare function getPendingWriteCount(db: Database): Promise<number>;
/** A queued write the server refused when it was replayed (rules, a missing document…); it was dropped. */
export declare function onWriteError(db: Database, callback: (event: { error: KuraError; writes: object[] }) => void): Unsubscribe;

// Firebase's further names: value types, settings, cache and network, equality, credentials (docs/web-sdk.md,
// "From Firebase")

/** A time (stored as the server's time text; such strings read back as Timestamps). */
export declare class Timestamp {
  constructor(seconds: number, nanoseconds: number);
  static now(): Timestamp;
  static fromDate(date: Date): Timestamp;
  static fromMillis(milliseconds: number): Timestamp;
  readonly seconds: number;
  readonly nanoseconds: number;
  toDate(): Date;
  toMillis(): number;
  isEqual(other: Timestamp): boolean;
  valueOf(): string;
  toString(): string;
  toJSON(): { seconds: number; nanoseconds: number; type: string };
}
/** Stored as the map `{latitude, longitude}`, which reads back as a map. */
export declare class GeoPoint {
  constructor(latitude: number, longitude: number);
  readonly latitude: number;
  readonly longitude: number;
  isEqual(other: GeoPoint): boolean;
  toJSON(): { latitude: number; longitude: number };
}
/** Stored as base64 text, which reads back as a string (`Bytes.fromBase64String` makes it Bytes again). */
export declare class Bytes {
  static fromBase64String(base64: string): Bytes;
  static fromUint8Array(array: Uint8Array): Bytes;
  toBase64(): string;
  toUint8Array(): Uint8Array;
  isEqual(other: Bytes): boolean;
  toString(): string;
}

export declare function queryEqual<T>(left: Query<T>, right: Query<T>): boolean;
export declare function snapshotEqual<T>(left: DocumentSnapshot<T> | QuerySnapshot<T>,
  right: DocumentSnapshot<T> | QuerySnapshot<T>): boolean;

export interface MemoryLocalCache { kind: 'memory' }
export interface PersistentLocalCache { kind: 'persistent' }
export type FirestoreLocalCache = MemoryLocalCache | PersistentLocalCache;
export interface PersistentTabManager { kind: 'persistentSingleTab' | 'persistentMultipleTab' }
export interface MemoryGarbageCollector { kind: 'memoryEager' | 'memoryLru' }
/**
 * `initializeFirestore` settings. Only `cacheSizeBytes: CACHE_SIZE_UNLIMITED` is taken; `host`, `ssl` and any other
 * setting throw `invalid-argument`.
 */
export interface FirestoreSettings {
  localCache?: FirestoreLocalCache;
  ignoreUndefinedProperties?: boolean;
  cacheSizeBytes?: number;
  experimentalAutoDetectLongPolling?: boolean;
  experimentalForceLongPolling?: boolean;
  persistence?: 'indexeddb' | 'none';
  writeReceipts?: string | null;
}
export declare const CACHE_SIZE_UNLIMITED: -1;
export declare function memoryLocalCache(settings?: { garbageCollector?: MemoryGarbageCollector }): MemoryLocalCache;
export declare function memoryEagerGarbageCollector(): MemoryGarbageCollector;
export declare function memoryLruGarbageCollector(settings?: { cacheSizeBytes?: number }): MemoryGarbageCollector;
export declare function persistentLocalCache(settings?: { tabManager?: PersistentTabManager; cacheSizeBytes?: number }): PersistentLocalCache;
export declare function persistentSingleTabManager(settings?: { forceOwnership?: false }): PersistentTabManager;
export declare function persistentMultipleTabManager(): PersistentTabManager;
export declare function enableIndexedDbPersistence(db: Database): Promise<void>;
export declare function enableMultiTabIndexedDbPersistence(db: Database): Promise<void>;
export declare function clearIndexedDbPersistence(db: Database): Promise<void>;
export declare function enableNetwork(db: Database): Promise<void>;
export declare function disableNetwork(db: Database): Promise<void>;
export declare function terminate(db: Database): Promise<void>;
export declare function onSnapshotsInSync(db: Database, observer: (() => void) | { next: () => void }): Unsubscribe;

export declare class EmailAuthCredential {
  readonly providerId: 'password';
  readonly signInMethod: 'password';
  toJSON(): object;
}
export declare class EmailAuthProvider {
  static readonly PROVIDER_ID: 'password';
  static readonly EMAIL_PASSWORD_SIGN_IN_METHOD: 'password';
  static readonly EMAIL_LINK_SIGN_IN_METHOD: 'emailLink';
  readonly providerId: 'password';
  static credential(email: string, password: string): EmailAuthCredential;
  /** Throws `unimplemented`: Kura has no email-link sign-in. */
  static credentialWithLink(email: string, emailLink: string): never;
}
export declare function reauthenticateWithCredential(user: User, credential: EmailAuthCredential): Promise<{
  user: User; providerId: 'password'; operationType: 'reauthenticate';
}>;
export declare function signInWithCredential(auth: Auth, credential: EmailAuthCredential): Promise<UserCredential>;
export declare function getIdToken(user: User, forceRefresh?: boolean): Promise<string>;
export declare function getIdTokenResult(user: User, forceRefresh?: boolean): Promise<IdTokenResult>;
export declare function reload(user: User): Promise<void>;
/** Rejects with `auth/operation-not-allowed`: Kura confirms a new address first (verifyBeforeUpdateEmail). */
export declare function updateEmail(user: User, newEmail: string): Promise<never>;
/** `[]` for every well-formed address: Kura does not tell whether an address has an account. */
export declare function fetchSignInMethodsForEmail(auth: Auth, email: string): Promise<string[]>;
export declare function connectAuthEmulator(auth: Auth, url: string, options?: { disableWarnings?: boolean }): void;
export declare function connectFirestoreEmulator(db: Database, host: string, port: number, options?: { ssl?: boolean }): void;
export type LogLevel = 'debug' | 'verbose' | 'info' | 'warn' | 'error' | 'silent';
export declare function setLogLevel(logLevel: LogLevel): void;

// Names that need server features Kura lacks: each throws `unimplemented` (a KuraError) when called or constructed.

/** Throws `unimplemented` when constructed: Kura has no OAuth, phone or reCAPTCHA sign-in. */
export declare class GoogleAuthProvider { static credential(...args: unknown[]): never; }
export declare class GithubAuthProvider { static credential(...args: unknown[]): never; }
export declare class FacebookAuthProvider { static credential(...args: unknown[]): never; }
export declare class TwitterAuthProvider { static credential(...args: unknown[]): never; }
export declare class OAuthProvider { constructor(providerId: string); static credential(...args: unknown[]): never; }
export declare class SAMLAuthProvider { constructor(providerId: string); static credential(...args: unknown[]): never; }
export declare class PhoneAuthProvider { constructor(auth?: Auth); static credential(...args: unknown[]): never; }
export declare class RecaptchaVerifier { constructor(...args: unknown[]); }
export declare function signInWithPopup(...args: unknown[]): never;
export declare function signInWithRedirect(...args: unknown[]): never;
export declare function getRedirectResult(...args: unknown[]): never;
export declare function linkWithPopup(...args: unknown[]): never;
export declare function linkWithRedirect(...args: unknown[]): never;
export declare function reauthenticateWithPopup(...args: unknown[]): never;
export declare function reauthenticateWithRedirect(...args: unknown[]): never;
export declare function linkWithCredential(...args: unknown[]): never;
export declare function unlink(...args: unknown[]): never;
export declare function signInAnonymously(auth: Auth): never;
export declare function signInWithCustomToken(auth: Auth, token: string): never;
export declare function sendSignInLinkToEmail(...args: unknown[]): never;
export declare function signInWithEmailLink(...args: unknown[]): never;
/** Always false: Kura has no email-link sign-in. */
export declare function isSignInWithEmailLink(auth: Auth, emailLink: string): false;
export declare function signInWithPhoneNumber(...args: unknown[]): never;
export declare function linkWithPhoneNumber(...args: unknown[]): never;
export declare function updatePhoneNumber(...args: unknown[]): never;
export declare function multiFactor(user: User): never;
export declare function getMultiFactorResolver(...args: unknown[]): never;
export declare function loadBundle(...args: unknown[]): never;
export declare function namedQuery(...args: unknown[]): never;
export declare function setIndexConfiguration(...args: unknown[]): never;
