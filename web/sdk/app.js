// Apps: `initializeApp({url})` names one Kura server and the SDK's settings for it.

import { Transport } from './transport.js';
import { invalidArgument } from './errors.js';

const apps = new Map();
const DEFAULT = '[DEFAULT]';

/**
 * Makes an app for one Kura server.
 * @param {{url?: string, authPersistence?: 'local'|'session'|'memory', persistence?: 'indexeddb'|'memory',
 *   requestTimeoutMs?: number, writeReceipts?: string|null}} options `url` defaults to the page's origin.
 * @param {string} [name]
 */
export function initializeApp(options = {}, name = DEFAULT) {
  const url = options.url ?? globalThis.location?.origin;
  if (!url) throw invalidArgument('initializeApp needs {url}');
  const existing = apps.get(name);
  if (existing) {
    if (existing.options.url === url) return existing;
    throw new Error(`an app named ${name} exists with another url`);
  }
  const app = new KuraApp(name, { ...options, url: url.replace(/\/+$/, '') });
  apps.set(name, app);
  return app;
}

/** The app made by `initializeApp` under `name`. */
export function getApp(name = DEFAULT) {
  const app = apps.get(name);
  if (!app) throw new Error(`no app named ${name}: call initializeApp first`);
  return app;
}

/** Every app made so far. */
export function getApps() {
  return [...apps.values()];
}

/** Forgets the app (its listeners are closed). */
export async function deleteApp(app) {
  apps.delete(app.name);
  for (const component of app._components.values()) await component._terminate?.();
  app._components.clear();
}

/** One server and its settings; the auth and database instances hang off it. */
export class KuraApp {
  constructor(name, options) {
    this.name = name;
    this.options = Object.freeze(options);
    this.automaticDataCollectionEnabled = false;
    this._transport = new Transport(options.url, options);
    this._components = new Map();
  }

  /** The component `key`, made by `make` the first time. */
  _component(key, make) {
    let component = this._components.get(key);
    if (!component) {
      component = make();
      this._components.set(key, component);
    }
    return component;
  }
}
