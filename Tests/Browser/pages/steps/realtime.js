// Page-side steps for suite_realtime.py: listeners record every snapshot in t.state.

function record(t, name) {
  t.state.listeners ??= {};
  const log = { snapshots: [], errors: [] };
  t.state.listeners[name] = log;
  return log;
}

/** Listens to users/{uid}/{collection} ordered by rank (optionally only `done == false`). */
export function listenQuery(t, name, collection, openOnly = false, includeMetadataChanges = false) {
  const { kura } = t;
  const uid = t.auth().currentUser.uid;
  const constraints = [kura.orderBy('rank')];
  if (openOnly) constraints.unshift(kura.where('done', '==', false));
  const log = record(t, name);
  const q = kura.query(kura.collection(t.db(), 'users', uid, collection), ...constraints);
  log.stop = kura.onSnapshot(q, { includeMetadataChanges }, (snapshot) => {
    log.snapshots.push({
      ids: snapshot.docs.map((d) => d.id),
      titles: snapshot.docs.map((d) => d.get('title')),
      changes: snapshot.docChanges().map((c) => `${c.type} ${c.doc.id} ${c.oldIndex}>${c.newIndex}`),
      pending: snapshot.metadata.hasPendingWrites,
      fromCache: snapshot.metadata.fromCache,
    });
  }, (error) => log.errors.push(error.code));
}

export function listenDoc(t, name, path) {
  const { kura } = t;
  const log = record(t, name);
  log.stop = kura.onSnapshot(kura.doc(t.db(), path.replace('{uid}', t.auth().currentUser?.uid)), (snapshot) => {
    log.snapshots.push({ exists: snapshot.exists(), data: snapshot.data() ?? null, pending: snapshot.metadata.hasPendingWrites });
  }, (error) => log.errors.push(error.code));
}

export function stop(t, name) {
  t.state.listeners[name].stop();
}

export function snapshots(t, name) {
  return t.state.listeners[name].snapshots;
}

export function errors(t, name) {
  return t.state.listeners[name].errors;
}

export function lastIds(t, name) {
  return t.state.listeners[name].snapshots.at(-1)?.ids ?? null;
}

/** Every change the listener was told about, in order. */
export function allChanges(t, name) {
  return t.state.listeners[name].snapshots.flatMap((s) => s.changes);
}

export function statistics(t) {
  return { ...t.db()._hub.statistics };
}

export async function write(t, collection, id, data) {
  const { kura } = t;
  await kura.setDoc(kura.doc(t.db(), 'users', t.auth().currentUser.uid, collection, id), data);
}

export async function update(t, collection, id, data) {
  const { kura } = t;
  await kura.updateDoc(kura.doc(t.db(), 'users', t.auth().currentUser.uid, collection, id), data);
}

export async function remove(t, collection, id) {
  const { kura } = t;
  await kura.deleteDoc(kura.doc(t.db(), 'users', t.auth().currentUser.uid, collection, id));
}

export function uid(t) {
  return t.auth().currentUser?.uid ?? null;
}

export function token(t) {
  return t.auth().currentUser.getIdToken();
}

export function allChangesInclude(t, change) {
  return allChanges(t, 'all').includes(change);
}

export function connectionsAtLeast(t, count) {
  return t.db()._hub.statistics.connections >= count;
}

export function signedOutWithError(t, name) {
  return t.auth().currentUser === null && t.state.listeners[name].errors.length > 0;
}

export function dropConnection(t) {
  t.db()._hub.dropConnection();
}

/** Listens to the last two of users/{uid}/{collection} by rank (limitToLast: the reversed query on the wire). */
export function listenLast(t, name, collection) {
  const { kura } = t;
  const log = record(t, name);
  const q = kura.query(kura.collection(t.db(), 'users', t.auth().currentUser.uid, collection), kura.orderBy('rank'),
    kura.limitToLast(2));
  log.stop = kura.onSnapshot(q, (snapshot) => {
    log.snapshots.push({ ids: snapshot.docs.map((d) => d.id), changes: snapshot.docChanges().map((c) => `${c.type} ${c.doc.id}`) });
  }, (error) => log.errors.push(error.code));
}

/** Every change a listener reported, replayed onto its first view: must give its last view. */
export function changesReplay(t, name) {
  const log = t.state.listeners[name];
  const view = [];
  for (const snapshot of log.snapshots) {
    for (const change of snapshot.changes) {
      const [type, id, indices] = change.split(' ');
      const [from, to] = (indices ?? '-1>-1').split('>').map(Number);
      if (from >= 0) view.splice(from, 1);
      if (to >= 0) view.splice(to, 0, id);
      if (type === 'removed' && from < 0) view.splice(view.indexOf(id), 1);
    }
  }
  return view;
}
