// Firestore's value types: `Timestamp`, `GeoPoint` and `Bytes`. Kura's data is JSON, so each has a JSON form
// (docs/web-sdk.md, "Values"): a Timestamp is stored as the server's time text (`2026-11-29T15:59:28.039012Z`) and
// exactly such strings read back as Timestamps — the rule KuraClient follows too (Tests/Cases/timestamps.json); a
// GeoPoint is stored as the map `{latitude, longitude}` and a Bytes as its base64 text, and both read back as what
// they are stored as (a map, a string), since nothing tells them apart from ordinary data.

import { invalidArgument } from './errors.js';

const SERVER_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{6})Z$/;

function daysIn(month, year) {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** A point in time with nanosecond fields (Kura keeps microseconds), as Firestore's `Timestamp`. */
export class Timestamp {
  /**
   * @param {number} seconds whole seconds since 1970-01-01T00:00:00Z.
   * @param {number} nanoseconds 0 … 999,999,999.
   */
  constructor(seconds, nanoseconds) {
    if (!Number.isInteger(seconds) || !Number.isInteger(nanoseconds) || nanoseconds < 0 || nanoseconds > 999999999) {
      throw invalidArgument(`Timestamp needs whole seconds and nanoseconds in 0…999999999 (got ${seconds}, ${nanoseconds})`);
    }
    this.seconds = seconds;
    this.nanoseconds = nanoseconds;
  }

  static now() {
    return Timestamp.fromMillis(Date.now());
  }

  static fromDate(date) {
    return Timestamp.fromMillis(date.getTime());
  }

  static fromMillis(milliseconds) {
    const seconds = Math.floor(milliseconds / 1000);
    const nanoseconds = Math.floor((milliseconds - seconds * 1000) * 1e6);
    return new Timestamp(seconds, nanoseconds);
  }

  /** The time the server's text names, or null for any other string (Tests/Cases/timestamps.json). */
  static _fromServerText(text) {
    const match = SERVER_TIME.exec(text);
    if (!match) return null;
    const [year, month, day, hour, minute, second, micros] = match.slice(1).map(Number);
    if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || second > 59) {
      return null;
    }
    const date = new Date(0);
    date.setUTCFullYear(year, month - 1, day); // not Date.UTC, which maps years 0–99 to 1900–1999
    date.setUTCHours(hour, minute, second, 0);
    return new Timestamp(date.getTime() / 1000, micros * 1000);
  }

  toDate() {
    return new Date(this.toMillis());
  }

  toMillis() {
    return this.seconds * 1000 + this.nanoseconds / 1e6;
  }

  isEqual(other) {
    return other instanceof Timestamp && other.seconds === this.seconds && other.nanoseconds === this.nanoseconds;
  }

  /** Sortable text, so `<` and `>` compare Timestamps as Firestore's do. */
  valueOf() {
    const seconds = String(this.seconds - -62135596800).padStart(12, '0');
    return `${seconds}.${String(this.nanoseconds).padStart(9, '0')}`;
  }

  toString() {
    return `Timestamp(seconds=${this.seconds}, nanoseconds=${this.nanoseconds})`;
  }

  toJSON() {
    return { seconds: this.seconds, nanoseconds: this.nanoseconds, type: 'firestore/timestamp/1.1' };
  }

  /** The server's text for this time: UTC, microseconds (rounded). */
  _serverText() {
    let seconds = this.seconds;
    let micros = Math.round(this.nanoseconds / 1000);
    if (micros === 1000000) {
      seconds += 1;
      micros = 0;
    }
    const whole = new Date(seconds * 1000).toISOString();
    return `${whole.slice(0, whole.length - 5)}.${String(micros).padStart(6, '0')}Z`;
  }
}

/** A latitude and longitude, as Firestore's `GeoPoint`; stored as the map `{latitude, longitude}`. */
export class GeoPoint {
  constructor(latitude, longitude) {
    if (!Number.isFinite(latitude) || latitude < -90 || latitude > 90) {
      throw invalidArgument(`latitude must be a number in -90…90 (got ${latitude})`);
    }
    if (!Number.isFinite(longitude) || longitude < -180 || longitude > 180) {
      throw invalidArgument(`longitude must be a number in -180…180 (got ${longitude})`);
    }
    this._lat = latitude;
    this._long = longitude;
  }
  get latitude() {
    return this._lat;
  }
  get longitude() {
    return this._long;
  }
  isEqual(other) {
    return other instanceof GeoPoint && other._lat === this._lat && other._long === this._long;
  }
  toJSON() {
    return { latitude: this._lat, longitude: this._long };
  }
}

/** Bytes, as Firestore's `Bytes`; stored as base64 text. */
export class Bytes {
  constructor(bytes) {
    this._bytes = bytes;
  }
  static fromBase64String(base64) {
    let binary;
    try {
      binary = atob(base64);
    } catch {
      throw invalidArgument('Bytes.fromBase64String needs base64 text');
    }
    return new Bytes(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  }
  static fromUint8Array(array) {
    if (!(array instanceof Uint8Array)) throw invalidArgument('Bytes.fromUint8Array needs a Uint8Array');
    return new Bytes(new Uint8Array(array));
  }
  toBase64() {
    let binary = '';
    for (const byte of this._bytes) binary += String.fromCharCode(byte);
    return btoa(binary);
  }
  toUint8Array() {
    return new Uint8Array(this._bytes);
  }
  isEqual(other) {
    return other instanceof Bytes && other.toBase64() === this.toBase64();
  }
  toString() {
    return `Bytes(base64: ${this.toBase64()})`;
  }
}

/** A stored value as `data()` gives it: the server's time strings become Timestamps, at any depth. */
export function readValue(value) {
  if (typeof value === 'string') return Timestamp._fromServerText(value) ?? value;
  if (Array.isArray(value)) return value.map(readValue);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [key, member] of Object.entries(value)) out[key] = readValue(member);
    return out;
  }
  return value;
}
