// Firestore's cache and network controls, mapped onto Kura's offline store (offline.js): the `localCache`
// settings of `initializeFirestore` (`persistentLocalCache`, `memoryLocalCache`, their tab managers and garbage
// collectors), `enableIndexedDbPersistence`, `clearIndexedDbPersistence`, `disableNetwork`/`enableNetwork`,
// `terminate` and `onSnapshotsInSync`. Settings Kura cannot honour are refused with a sentence, never ignored.

import { invalidArgument, KuraError, networkError } from './errors.js';
import { ListenerHub } from './listeners.js';
import { OfflineStore } from './offline.js';

/** Firestore's "no size limit" for `cacheSizeBytes`: Kura's cache is not bounded, so this is the only size taken. */
export const CACHE_SIZE_UNLIMITED = -1;

/** The cache in memory only (Firestore's default without persistence): Kura keeps no cache then. */
export function memoryLocalCache(settings = {}) {
  const gc = settings.garbageCollector;
  if (gc && gc.kind !== 'memoryEager' && gc.kind !== 'memoryLru') {
    throw invalidArgument('memoryLocalCache takes memoryEagerGarbageCollector() or memoryLruGarbageCollector()');
  }
  return { kind: 'memory', _settings: settings };
}

/** Firestore's eager collector for the memory cache (Kura keeps no memory cache: nothing to collect). */
export function memoryEagerGarbageCollector() {
  return { kind: 'memoryEager' };
}

/** Firestore's LRU collector for the memory cache; only `cacheSizeBytes: CACHE_SIZE_UNLIMITED` is taken. */
export function memoryLruGarbageCollector(settings = {}) {
  checkCacheSize(settings.cacheSizeBytes, 'memoryLruGarbageCollector');
  return { kind: 'memoryLru' };
}

/** The IndexedDB cache and write queue (`persistence: 'indexeddb'`), shared by the app's tabs. */
export function persistentLocalCache(settings = {}) {
  checkCacheSize(settings.cacheSizeBytes, 'persistentLocalCache');
  const tabManager = settings.tabManager ?? persistentMultipleTabManager();
  if (tabManager.kind !== 'persistentSingleTab' && tabManager.kind !== 'persistentMultipleTab') {
    throw invalidArgument('persistentLocalCache takes persistentSingleTabManager() or persistentMultipleTabManager()');
  }
  return { kind: 'persistent', tabManager };
}

/**
 * Firestore's single-tab manager. Kura's persistent cache always serves every tab of the app (one shared queue,
 * sent by whichever tab is alive), so this behaves as the multiple-tab manager; `forceOwnership` is refused.
 */
export function persistentSingleTabManager(settings = {}) {
  if (settings?.forceOwnership) {
    throw invalidArgument('forceOwnership is not supported: Kura\'s persistent cache is shared by every tab of the app');
  }
  return { kind: 'persistentSingleTab' };
}

/** Firestore's multiple-tab manager: the app's tabs share the cache and one write queue (docs/web-sdk.md). */
export function persistentMultipleTabManager() {
  return { kind: 'persistentMultipleTab' };
}

function checkCacheSize(size, where) {
  if (size === undefined || size === CACHE_SIZE_UNLIMITED) return;
  throw invalidArgument(`${where}: cacheSizeBytes ${size} is not supported; Kura's cache is not bounded by size, ` +
    'so only CACHE_SIZE_UNLIMITED is taken');
}

/** Transport flags of Firestore that describe what Kura's stream (one plain HTTP response) already is. */
const TRANSPORT_FLAGS = ['experimentalAutoDetectLongPolling', 'experimentalForceLongPolling', 'useFetchStreams'];

/**
 * `initializeFirestore` settings as the database's: `localCache`, `ignoreUndefinedProperties`, `cacheSizeBytes`
 * (CACHE_SIZE_UNLIMITED), Firestore's long-polling flags (Kura's stream needs none), and Kura's own
 * `persistence` and `writeReceipts`. Anything else throws `invalid-argument` with a sentence.
 */
export function databaseSettings(settings) {
  const out = {};
  for (const [key, value] of Object.entries(settings ?? {})) {
    switch (key) {
      case 'localCache':
        if (value?.kind === 'persistent') out.persistence = 'indexeddb';
        else if (value?.kind === 'memory') out.persistence = 'none';
        else throw invalidArgument('localCache takes persistentLocalCache(…) or memoryLocalCache(…)');
        break;
      case 'ignoreUndefinedProperties': out.ignoreUndefinedProperties = !!value; break;
      case 'cacheSizeBytes': checkCacheSize(value, 'initializeFirestore'); break;
      case 'persistence': case 'writeReceipts': out[key] = value; break;
      case 'host': case 'ssl':
        throw invalidArgument(`the ${key} setting is not supported: the server is initializeApp's url ` +
          '(or connectFirestoreEmulator(db, host, port))');
      default:
        if (TRANSPORT_FLAGS.includes(key)) break;
        throw invalidArgument(`the Firestore setting ${key} is not supported by Kura`);
    }
  }
  return out;
}

/**
 * Turns on the IndexedDB cache and write queue of a database that has not been used yet (Firestore's
 * deprecated way; `initializeFirestore(app, {localCache: persistentLocalCache()})` is the current one).
 */
export async function enableIndexedDbPersistence(db) {
  if (db._offline) return;
  if (db._hub.targets.size) {
    throw new KuraError('failed-precondition', 'enableIndexedDbPersistence must be called before any listener is added');
  }
  db._settings = { ...db._settings, persistence: 'indexeddb' };
  db._offline = new OfflineStore(db, db._settings);
  db._hub = new ListenerHub(db);
  await db._offline.ready;
}

/** The same as enableIndexedDbPersistence: Kura's persistent cache is always shared by the app's tabs. */
export const enableMultiTabIndexedDbPersistence = enableIndexedDbPersistence;

/**
 * Deletes the app's IndexedDB cache and write queue (queued writes are lost). As in Firestore, only for a
 * database that is terminated or has not started its persistence.
 */
export async function clearIndexedDbPersistence(db) {
  if (db._offline && !db._terminated) {
    throw new KuraError('failed-precondition',
      'clearIndexedDbPersistence needs a terminated database (call terminate(db) first) or one without persistence');
  }
  if (!globalThis.indexedDB) return;
  const name = `kura:${db.app.options.url}:${db.app.name}`;
  await new Promise((resolve, reject) => {
    let timer = null;
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => {
      clearTimeout(timer);
      resolve();
    };
    request.onerror = () => {
      clearTimeout(timer);
      reject(request.error);
    };
    // Blocked: a connection is still open. Ours finish their last transactions and close; another tab's may not.
    request.onblocked = () => {
      timer = setTimeout(() => reject(new KuraError('failed-precondition',
        'the cache is open in another tab of this app: close it (or terminate its database) first')), 2000);
    };
  });
}

/**
 * Stops using the network: reads answer from the cache (`unavailable` where it cannot), writes are queued (with
 * persistence), listeners show the cache with `fromCache: true`. `enableNetwork` resumes.
 */
export async function disableNetwork(db) {
  if (db._networkDisabled) return;
  let resume;
  db._networkDisabled = new Promise((resolve) => (resume = resolve));
  db._resumeNetwork = resume;
  db._hub.dropConnection();
}

/** Uses the network again after disableNetwork: listeners reconnect and queued writes are sent. */
export async function enableNetwork(db) {
  if (!db._networkDisabled) return;
  const resume = db._resumeNetwork;
  db._networkDisabled = null;
  db._resumeNetwork = null;
  resume();
  db._offline?.serverReached();
}

/**
 * Shuts the database down: listeners end, the cache is closed, and every later call with it fails
 * (`failed-precondition`). `getFirestore(app)` then makes a new one.
 */
export async function terminate(db) {
  if (db._terminated) return;
  db._terminated = true;
  if (db.app._components.get('database') === db) db.app._components.delete('database');
  await db._terminate();
}

/** Calls `observer()` when every listener is in step with the server's latest events; returns the unsubscribe. */
export function onSnapshotsInSync(db, observer) {
  const next = typeof observer === 'function' ? observer : observer?.next?.bind(observer);
  if (!next) throw invalidArgument('onSnapshotsInSync needs a callback');
  return db._hub.onSync(next);
}

/** The error of a call made while the network is disabled. */
export function networkDisabled() {
  return networkError(new Error('the network is disabled (disableNetwork)'));
}
