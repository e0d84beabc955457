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

/**
 * Counts, from now on, the requests that add listeners (POST /api/listen/{connection}) and how many of them failed
 * on their way: `fetch` is wrapped for the rest of the page's life.
 */
export function countListenAdds(t) {
  if (t.state.listenAdds) return;
  const counts = { sent: 0, failed: 0 };
  t.state.listenAdds = counts;
  const original = globalThis.fetch;
  globalThis.fetch = async (url, init) => {
    const adding = init?.method === 'POST' && String(url).includes('/api/listen/');
    if (adding) counts.sent += 1;
    try {
      return await original(url, init);
    } catch (error) {
      if (adding) counts.failed += 1;
      throw error;
    }
  };
}

export function listenAdds(t) {
  return { ...t.state.listenAdds };
}

/**
 * Wraps `fetch` so that the test can add events to the listen streams the page opens from now on, as if the
 * server had sent them (`injectTargetErrors`). An event is added only where the server's own text is between two
 * events, never inside one.
 */
export function interceptListenStream(t) {
  const original = globalThis.fetch;
  const streams = (t.state.listenStreams = []);
  const encoder = new TextEncoder();
  globalThis.fetch = async (url, init) => {
    const response = await original(url, init);
    if ((init?.method ?? 'GET') !== 'GET' || !String(url).includes('/api/listen?') || !response.body) return response;
    const reader = response.body.getReader();
    const stream = { queued: [], atBoundary: true, controller: null };
    stream.flush = () => {
      if (!stream.atBoundary) return;
      for (const text of stream.queued.splice(0)) stream.controller.enqueue(encoder.encode(text));
    };
    streams.push(stream);
    const body = new ReadableStream({
      start(controller) {
        stream.controller = controller;
      },
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        controller.enqueue(value);
        stream.atBoundary = value.length >= 2 && value.at(-1) === 10 && value.at(-2) === 10;
        stream.flush();
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Adds an `error` event with `code` for every target of the page's listeners to the last listen stream. */
export function injectTargetErrors(t, code) {
  const stream = t.state.listenStreams.at(-1);
  for (const target of t.db()._hub.targets.keys()) {
    stream.queued.push(`event: error\ndata: ${JSON.stringify({ target, code, message: 'injected by the test' })}\n\n`);
  }
  stream.flush();
}
