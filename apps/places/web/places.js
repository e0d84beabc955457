// The places app's reads and writes on kura.js: range queries for the nearest-place search and the name search,
// and the signed-in user's saved places (users/{uid}/savedPlaces). The search logic itself is in geo.js.

import {
  collection, query, orderBy, startAt, endBefore, limit, getDocs, addDoc, deleteDoc, doc, onSnapshot, serverTimestamp,
} from '/sdk/kura.js';
import { nearest, nameKey, rankByName } from './geo.js';

const placeOf = (snapshot) => ({ id: snapshot.id, ...snapshot.data() });

/** Places with lower <= field < upper, in that field's order, at most `count`: cursors rather than two range
 * filters, because Kura bounds its index walk at both cursors (KuraPlaceSource.swift says more). */
async function range(db, field, lower, upper, count) {
  const q = query(collection(db, 'places'), orderBy(field), startAt(lower), endBefore(upper), limit(count));
  return (await getDocs(q)).docs.map(placeOf);
}

/** The nearest place to a point: `{place, distance, queries, rounds}`. */
export function reverseGeocode(db, lat, lon) {
  return nearest(lat, lon, (lower, upper, count) => range(db, 'geohash', lower, upper, count));
}

/** Places whose name starts with `text` (case and accents ignored), best first. */
export async function searchByName(db, text, count = 8) {
  const key = nameKey(text);
  if (!key) return [];
  const found = await range(db, 'nameKey', key, key + '\u{10FFFF}', 200);
  return rankByName(found, key).slice(0, count);
}

const saved = (db, uid) => collection(db, 'users', uid, 'savedPlaces');

/** Saves a point with a label (and the place found there) for the user. */
export function savePlace(db, uid, { label, lat, lon, place }) {
  return addDoc(saved(db, uid), { label, lat, lon, place: place || null, createdAt: serverTimestamp() });
}

export function removePlace(db, uid, id) { return deleteDoc(doc(db, 'users', uid, 'savedPlaces', id)); }

/** Calls `next(list)` with the user's saved places, newest first, now and after every change. */
export function watchSavedPlaces(db, uid, next, error) {
  return onSnapshot(query(saved(db, uid), orderBy('createdAt', 'desc')),
    (snapshot) => next(snapshot.docs.map((d) => ({ id: d.id, ...d.data() }))), error);
}
