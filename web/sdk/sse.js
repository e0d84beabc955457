// Server-Sent Events over fetch: the stream's bytes parsed by the WHATWG rules, so that the ID token goes in the
// Authorization header (EventSource cannot send headers) and the reader controls reconnection itself.

/** Incremental `text/event-stream` parser: `\n`, `\r\n` or `\r` line ends, `:` comments, multi-line data. */
export class EventStreamParser {
  constructor() {
    this._buffer = '';
    this._lastWasCR = false;
    this._reset();
  }

  _reset() {
    this._event = null;
    this._data = [];
    this._id = null;
  }

  /**
   * Feeds decoded text; returns the messages it completes: `{event, data, id}` (event `null` for an id-only block
   * that only moves the position).
   */
  feed(text) {
    const out = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this._buffer + text.slice(start, i);
      this._buffer = '';
      start = i + 1;
      if (c === 10 && this._lastWasCR && line === '') {
        this._lastWasCR = false;
        continue; // the LF of a CRLF
      }
      this._lastWasCR = c === 13;
      const message = this._line(line);
      if (message) out.push(message);
    }
    if (start < text.length) {
      this._buffer += text.slice(start);
      this._lastWasCR = false;
    }
    return out;
  }

  _line(line) {
    if (line === '') {
      const message = this._data.length
        ? { event: this._event ?? 'message', data: this._data.join('\n'), id: this._id }
        : this._id !== null ? { event: null, data: '', id: this._id } : null;
      this._reset();
      return message;
    }
    if (line[0] === ':') return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value[0] === ' ') value = value.slice(1);
    if (field === 'event') this._event = value;
    else if (field === 'data') this._data.push(value);
    else if (field === 'id' && !value.includes('\0')) this._id = value;
    return null;
  }
}

/**
 * Reads an event stream until it ends: calls `onMessage` for each message and `onBytes` whenever bytes arrive
 * (heartbeats included). Resolves when the server closes the stream; rejects on a network failure or abort.
 */
export async function readEventStream(response, onMessage, onBytes) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parser = new EventStreamParser();
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      onBytes();
      for (const message of parser.feed(decoder.decode(value, { stream: true }))) {
        if (onMessage(message) === false) return;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
