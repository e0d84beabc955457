// The document database: `getDatabase(app)` (Firestore's `getFirestore`), which makes the listener hub and, with
// `persistence: 'indexeddb'`, the offline store. References to its documents are references.js's.

import { getApp } from './app.js';
import { getAuth } from './auth.js';
import { OfflineStore } from './offline.js';
import { ListenerHub } from './listeners.js';

/**
 * The document database of `app` (default: the default app), made on first use. `persistence: 'indexeddb'` (here
 * or in initializeApp's options) turns on the offline cache and write queue.
 */
export function getDatabase(app = getApp(), settings = {}) {
  return app._component('database', () => new Database(app, { ...app.options, ...settings }));
}

/** Firestore's name for getDatabase. */
export const getFirestore = getDatabase;
/** Firestore's name for getDatabase with settings. */
export const initializeFirestore = getDatabase;

/** One server's document database. */
export class Database {
  constructor(app, settings) {
    this.app = app;
    this.type = 'firestore';
    this._settings = settings;
    this._auth = getAuth(app);
    this._offline = settings.persistence === 'indexeddb' ? new OfflineStore(this, settings) : null;
    this._hub = new ListenerHub(this);
  }

  toJSON() {
    return { app: this.app.name, url: this.app.options.url };
  }

  /** An API call as the signed-in user. */
  _call(method, path, options) {
    return this._auth._call(method, path, options);
  }

  async _terminate() {
    this._hub.close();
    await this._offline?.close();
  }
}
