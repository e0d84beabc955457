// The document database: `getDatabase(app)` (Firestore's `getFirestore`/`initializeFirestore`), which makes the
// listener hub and, with `persistence: 'indexeddb'` (or `localCache: persistentLocalCache()`), the offline store.
// References to its documents are references.js's; the cache and network controls are cache.js's.

import { getApp } from './app.js';
import { getAuth } from './auth.js';
import { databaseSettings, networkDisabled } from './cache.js';
import { invalidArgument, KuraError } from './errors.js';
import { OfflineStore } from './offline.js';
import { ListenerHub } from './listeners.js';

/**
 * The document database of `app` (default: the default app), made on first use. `persistence: 'indexeddb'` (here
 * or in initializeApp's options) turns on the offline cache and write queue.
 */
export function getDatabase(app = getApp(), settings = {}) {
  return app._component('database', () => new Database(app, { ...app.options, ...databaseSettings(settings) }));
}

/** Firestore's name for getDatabase; a Kura server has one database, `(default)`. */
export function getFirestore(app = getApp(), databaseId) {
  if (typeof app === 'string') [app, databaseId] = [getApp(), app];
  if (databaseId !== undefined && typeof databaseId !== 'object') checkDatabaseId(databaseId);
  return getDatabase(app, typeof databaseId === 'object' ? databaseId : {});
}

/**
 * Firestore's initializeFirestore: the database with `settings` (`localCache`, `ignoreUndefinedProperties`…; see
 * cache.js). Settings Kura cannot honour throw; a second call with other settings throws `failed-precondition`.
 */
export function initializeFirestore(app, settings = {}, databaseId) {
  if (databaseId !== undefined) checkDatabaseId(databaseId);
  const wanted = { ...app.options, ...databaseSettings(settings) };
  const existing = app._components.get('database');
  if (existing) {
    if (JSON.stringify(existing._settings) === JSON.stringify(wanted)) return existing;
    throw new KuraError('failed-precondition',
      'initializeFirestore has already been called (or getFirestore used) with other settings for this app');
  }
  return app._component('database', () => new Database(app, wanted));
}

function checkDatabaseId(databaseId) {
  if (databaseId !== '(default)') {
    throw invalidArgument(`a Kura server has one database, (default); there is no database named ${databaseId}`);
  }
}

/** One server's document database. */
export class Database {
  constructor(app, settings) {
    this.app = app;
    this.type = 'firestore';
    this._settings = settings;
    this._auth = getAuth(app);
    this._offline = settings.persistence === 'indexeddb' ? new OfflineStore(this, settings) : null;
    this._hub = new ListenerHub(this);
    /** A promise while disableNetwork is in force (cache.js). */
    this._networkDisabled = null;
    this._terminated = false;
  }

  toJSON() {
    return { app: this.app.name, url: this.app.options.url };
  }

  /** An API call as the signed-in user. */
  _call(method, path, options) {
    if (this._terminated) return Promise.reject(terminated());
    if (this._networkDisabled) return Promise.reject(networkDisabled());
    return this._auth._call(method, path, options);
  }

  /** The app now talks to another server (connectFirestoreEmulator, connectAuthEmulator): start afresh. */
  _retarget() {
    if (this._offline) {
      const old = this._offline;
      old.ready.then(() => old.close());
      this._offline = new OfflineStore(this, this._settings);
    }
    this._hub = new ListenerHub(this);
  }

  async _terminate() {
    this._hub.close();
    await this._offline?.close();
  }
}

/** The error of a call on a terminated database. */
export function terminated() {
  return new KuraError('failed-precondition', 'The client has already been terminated.');
}
