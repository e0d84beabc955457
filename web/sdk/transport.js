// Transport: JSON over fetch to one Kura server, with the server's errors turned into KuraError and a request
// that gets no answer into `unavailable` (network: true).

import { networkError, serverError } from './errors.js';

/** Sends requests to one server. */
export class Transport {
  /** @param {string} url the server's base URL, e.g. `https://kura.example.com`. */
  constructor(url, { requestTimeoutMs = 30000 } = {}) {
    this.url = url.replace(/\/+$/, '');
    this.requestTimeoutMs = requestTimeoutMs;
  }

  /**
   * Sends one request; resolves `{status, body, headers}` for a 2xx answer, rejects with a KuraError otherwise.
   * @param {string} method
   * @param {string} path starting with `/api/`.
   * @param {{body?: any, token?: string|null, headers?: Record<string,string>, signal?: AbortSignal}} [options]
   */
  async send(method, path, { body, token, headers = {}, signal } = {}) {
    const init = { method, headers: { Accept: 'application/json', ...headers }, cache: 'no-store' };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    if (token) init.headers.Authorization = `Bearer ${token}`;
    init.signal = signal ?? AbortSignal.timeout(this.requestTimeoutMs);
    let response;
    let text;
    try {
      response = await fetch(this.url + path, init);
      text = await response.text();
    } catch (cause) {
      throw networkError(cause);
    }
    let json = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    if (!response.ok) {
      const retryAfter = Number(response.headers.get('Retry-After')) || null;
      const error = json?.error;
      throw serverError(error?.code ?? `HTTP_${response.status}`, error?.message ?? text.slice(0, 200),
        response.status, retryAfter);
    }
    return { status: response.status, body: json, headers: response.headers };
  }
}

/** A document path's URL form: each ID percent-encoded. */
export function encodePath(path) {
  return path.split('/').map(encodeURIComponent).join('/');
}
