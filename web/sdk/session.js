// Sessions: the stored shape of a signed-in session, token expiry, the Web Lock that orders refreshes across
// tabs, and the IndexedDB copy of the latest session that the tabs consult under that lock.

export function sessionFrom(body, profile) {
  const lifetime = Number(body.expiresIn ?? 3600);
  let sid = null;
  try {
    sid = decodeClaims(body.idToken).sid ?? null;
  } catch {
    // A token without readable claims: sessions are then told apart by their tokens only.
  }
  return {
    uid: profile.uid,
    sid,
    profile,
    idToken: body.idToken,
    refreshToken: body.refreshToken,
    // A second less than the server says, so the SDK never presents a token the server just let expire.
    expiresAt: Date.now() + (lifetime - 1) * 1000,
    lifetime,
  };
}

export function expiresSoon(session) {
  const margin = Math.min(60, (session.lifetime ?? 3600) / 5) * 1000;
  return Date.now() >= session.expiresAt - margin;
}

export function decodeClaims(token) {
  const part = token.split('.')[1] ?? '';
  const base64 = part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '=');
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

/** Runs `task` holding the Web Lock `name` (across the origin's tabs and workers), or directly without Web Locks. */
export function withLock(name, task) {
  const locks = globalThis.navigator?.locks;
  if (!locks?.request) return task();
  return locks.request(name, task);
}

// The session as last written by any tab, in IndexedDB (consistent across tabs, unlike localStorage's
// asynchronous propagation), read and written under the refresh lock. Missing IndexedDB: null (the lock alone
// then orders the refreshes of one tab).

let sharedDatabase = null;

function openShared() {
  if (!globalThis.indexedDB) return Promise.resolve(null);
  sharedDatabase ??= new Promise((resolve) => {
    const request = indexedDB.open('kura-sessions', 1);
    request.onupgradeneeded = () => request.result.createObjectStore('sessions');
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => resolve(null);
    request.onblocked = () => resolve(null);
  });
  return sharedDatabase;
}

export async function readShared(key) {
  const idb = await openShared();
  if (!idb) return null;
  return new Promise((resolve) => {
    const request = idb.transaction('sessions', 'readonly').objectStore('sessions').get(key);
    request.onsuccess = () => resolve(request.result ?? null);
    request.onerror = () => resolve(null);
  });
}

export async function writeShared(key, session) {
  const idb = await openShared();
  if (!idb) return;
  await new Promise((resolve) => {
    const tx = idb.transaction('sessions', 'readwrite', { durability: 'strict' });
    if (session) tx.objectStore('sessions').put(session, key);
    else tx.objectStore('sessions').delete(key);
    tx.oncomplete = resolve;
    tx.onerror = resolve;
    tx.onabort = resolve;
  });
}
