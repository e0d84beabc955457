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

/** `code` is Firebase's (`auth/invalid-credential`, `permission-denied`…); `serverCode` Kura's (docs/api.md). */
export declare class KuraError extends Error {
  readonly name: 'KuraError';
  readonly code: string;
  readonly serverCode: string | null;
  readonly status: number | null;
  /** Seconds, from `Retry-After` on 429 answers. */
  readonly retryAfter: number | null;
  /** The server could not be reached at all. */
  readonly network: boolean;
  readonly customData: { serverCode: string | null; status: number | null };
}

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
  fromFirestore(snapshot: QueryDocumentSnapshot<DocumentData>, options?: unknown): T;
}

export declare class Database {
  readonly app: KuraApp;
  readonly type: 'firestore';
}
export declare function getDatabase(app?: KuraApp, settings?: Pick<KuraOptions, 'persistence' | 'writeReceipts'>): Database;
export declare const getFirestore: typeof getDatabase;
export declare const initializeFirestore: typeof getDatabase;

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
  data(options?: unknown): T | undefined;
  get(field: string | FieldPath): any;
}
export declare class QueryDocumentSnapshot<T = DocumentData> extends DocumentSnapshot<T> {
  data(options?: unknown): T;
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
export declare function where(field: string | FieldPath, op: WhereFilterOp, value: unknown): QueryConstraint;
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
