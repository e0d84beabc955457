// The console's only way to the server: the public and admin HTTP APIs (docs/api.md), with the admin key or the
// signed-in admin's ID token in `Authorization`, never in a URL.

const KEY_NAME = 'kura.console.key';

/** An API answer that is not 2xx: `status`, the stable `code` and the server's message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The error as one sentence ending with its code, for people. */
export function sentence(error) {
  if (error instanceof ApiError) {
    const text = error.message.trim();
    const ended = /[.!?。]$/.test(text) ? text : text + '.';
    return `${ended[0].toUpperCase()}${ended.slice(1)} (${error.code})`;
  }
  if (error && error.code && error.message) return `${error.message} (${error.code})`;
  return `The server could not be reached: ${error?.message ?? error} (NETWORK)`;
}

let credential = null; // {kind: 'key', key} | {kind: 'user', user, auth}

export function setCredential(value) { credential = value; }
export function currentCredential() { return credential; }

/** The stored admin key: sessionStorage, or localStorage when "remember on this browser" was ticked. */
export function storedKey() {
  return sessionStorage.getItem(KEY_NAME) ?? localStorage.getItem(KEY_NAME);
}

export function storeKey(key, remember) {
  forgetKey();
  (remember ? localStorage : sessionStorage).setItem(KEY_NAME, key);
}

export function forgetKey() {
  sessionStorage.removeItem(KEY_NAME);
  localStorage.removeItem(KEY_NAME);
}

async function authorization() {
  if (!credential) return null;
  if (credential.kind === 'key') return `Bearer ${credential.key}`;
  return `Bearer ${await credential.user.getIdToken()}`;
}

/**
 * One request. `body` is sent as JSON (or as text when a string and `text` is set); `ifMatch` becomes `If-Match`.
 * Answers `{status, json, text, etag}`; a non-2xx answer throws an `ApiError`.
 */
export async function call(method, path, { body, text = false, ifMatch, signal } = {}) {
  const headers = {};
  const auth = await authorization();
  if (auth) headers.Authorization = auth;
  if (ifMatch !== undefined && ifMatch !== null) headers['If-Match'] = `"${ifMatch}"`;
  let payload;
  if (body !== undefined) {
    if (text) {
      headers['Content-Type'] = 'text/plain; charset=utf-8';
      payload = body;
    } else {
      headers['Content-Type'] = 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
  }
  const response = await fetch(path, { method, headers, body: payload, signal, cache: 'no-store' });
  const raw = response.status === 204 ? '' : await response.text();
  let json = null;
  try { json = raw ? JSON.parse(raw) : null; } catch { json = null; }
  if (!response.ok) {
    const error = json?.error;
    throw new ApiError(response.status, error?.code ?? `HTTP_${response.status}`,
      error?.message ?? `the server answered ${response.status}`);
  }
  return { status: response.status, json, text: raw, etag: response.headers.get('ETag') };
}

/** GET and answer the JSON body. */
export async function get(path, options) { return (await call('GET', path, options)).json; }

/** Encodes each segment of a document or collection path for a URL. */
export function pathURL(path) { return path.split('/').map(encodeURIComponent).join('/'); }

/**
 * A listen stream (docs/realtime.md) on one query, read with fetch so the credential travels in `Authorization`.
 * Calls `onEvent(name, data)` for each event; returns a function that closes the stream.
 */
export function listen(query, onEvent, onError) {
  const controller = new AbortController();
  (async () => {
    const { EventStreamParser } = await import('/sdk/sse.js');
    const headers = { Accept: 'text/event-stream' };
    const auth = await authorization();
    if (auth) headers.Authorization = auth;
    const url = `/api/listen?target=view&query=${encodeURIComponent(JSON.stringify(query))}`;
    const response = await fetch(url, { headers, signal: controller.signal });
    if (!response.ok) {
      const json = await response.json().catch(() => null);
      throw new ApiError(response.status, json?.error?.code ?? `HTTP_${response.status}`,
        json?.error?.message ?? 'the listen stream was refused');
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const parser = new EventStreamParser();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const message of parser.feed(value)) {
        if (!message.event) continue;
        let data = null;
        try { data = JSON.parse(message.data); } catch { data = message.data; }
        onEvent(message.event, data);
      }
    }
  })().catch((error) => {
    if (error?.name !== 'AbortError') onError?.(error);
  });
  return () => controller.abort();
}
