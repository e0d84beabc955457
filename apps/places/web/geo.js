// The places app's geometry, mirroring Sources/KuraPlaces (GeohashCell, GreatCircle, CompassDirection, PlaceName,
// NearestPlaceSearch): geohash cells, great-circle distances, 8-point compass directions, search keys and the
// nearest-place search over any source of geohash range reads. No DOM, no network: apps/places/cases.json checks
// it against the same cases as the Swift tests.

export const ALPHABET = '0123456789bcdefghjkmnpqrstuvwxyz';
export const MAX_PRECISION = 12;
export const EARTH_RADIUS_KM = 6371.0088;

const lonBits = (p) => Math.floor((5 * p + 1) / 2);
const latBits = (p) => Math.floor((5 * p) / 2);
export const cellHeight = (p) => 180 / 2 ** latBits(p);
export const cellWidth = (p) => 360 / 2 ** lonBits(p);
const rows = (p) => 2 ** latBits(p);
const columns = (p) => 2 ** lonBits(p);

/** A geohash cell: row counted from the south pole, column eastward from 180° W (wrapped). */
export function cell(precision, row, column) {
  const n = columns(precision);
  return {
    precision,
    row: Math.min(Math.max(row, 0), rows(precision) - 1),
    column: ((column % n) + n) % n,
  };
}

/** The cell of `precision` characters holding the point (90° N is in the top row, 180° E is 180° W). */
export function cellOf(lat, lon, precision) {
  return cell(precision, Math.floor((lat + 90) / cellHeight(precision)), Math.floor((lon + 180) / cellWidth(precision)));
}

/** The hash of a cell: the two indexes' bits interleaved, longitude first. Indexes stay below 2^30, so
 * the arithmetic is exact in doubles. */
export function hashOf(c) {
  const total = 5 * c.precision;
  let latLeft = latBits(c.precision);
  let lonLeft = lonBits(c.precision);
  let out = '';
  let value = 0;
  for (let position = 0; position < total; position++) {
    let bit;
    if (position % 2 === 0) bit = Math.floor(c.column / 2 ** --lonLeft) % 2;
    else bit = Math.floor(c.row / 2 ** --latLeft) % 2;
    value = value * 2 + bit;
    if (position % 5 === 4) { out += ALPHABET[value]; value = 0; }
  }
  return out;
}

export function encode(lat, lon, precision) { return hashOf(cellOf(lat, lon, precision)); }

/** The cell a hash names; null for an empty, too long or invalid hash. */
export function decode(hash) {
  const text = String(hash).toLowerCase();
  if (text.length < 1 || text.length > MAX_PRECISION) return null;
  let row = 0;
  let column = 0;
  let position = 0;
  for (const character of text) {
    const value = ALPHABET.indexOf(character);
    if (value < 0) return null;
    for (let i = 4; i >= 0; i--, position++) {
      const bit = (value >> i) & 1;
      if (position % 2 === 0) column = column * 2 + bit; else row = row * 2 + bit;
    }
  }
  return cell(text.length, row, column);
}

export function bounds(c) {
  const h = cellHeight(c.precision);
  const w = cellWidth(c.precision);
  return { south: c.row * h - 90, north: (c.row + 1) * h - 90, west: c.column * w - 180, east: (c.column + 1) * w - 180 };
}

/** The eight cells around (fewer next to a pole), N, NE, E, SE, S, SW, W, NW; east and west wrap. */
export function neighbours(c) {
  const steps = [[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]];
  const out = [];
  const own = hashOf(c);
  for (const [up, right] of steps) {
    const row = c.row + up;
    if (row < 0 || row >= rows(c.precision)) continue;
    const hash = hashOf(cell(c.precision, row, c.column + right));
    if (hash !== own && !out.includes(hash)) out.push(hash);
  }
  return out.map(decode);
}

export function children(c) { const h = hashOf(c); return [...ALPHABET].map((a) => decode(h + a)); }

const rad = (d) => (d * Math.PI) / 180;
const deg = (r) => (r * 180) / Math.PI;

/** Great-circle distance in km (haversine). */
export function distance(lat1, lon1, lat2, lon2) {
  const p1 = rad(lat1);
  const p2 = rad(lat2);
  const dp = p2 - p1;
  const dl = rad(lon2 - lon1);
  const h = Math.sin(dp / 2) ** 2 + Math.cos(p1) * Math.cos(p2) * Math.sin(dl / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

function distanceToMeridianSegment(lat, lon, meridian, south, north) {
  let best = Math.min(distance(lat, lon, south, meridian), distance(lat, lon, north, meridian));
  const dl = rad(meridian - lon);
  if (Math.cos(dl) > 0) {
    const foot = deg(Math.atan2(Math.tan(rad(lat)), Math.cos(dl)));
    if (foot >= south && foot <= north) best = Math.min(best, distance(lat, lon, foot, meridian));
  }
  return best;
}

/** The shortest distance in km from the point to any point of the cell (0 inside). */
export function cellDistance(c, lat, lon) {
  const b = bounds(c);
  if (lon >= b.west && lon <= b.east) {
    return distance(lat, lon, Math.min(Math.max(lat, b.south), b.north), lon);
  }
  return Math.min(distanceToMeridianSegment(lat, lon, b.west, b.south, b.north),
    distanceToMeridianSegment(lat, lon, b.east, b.south, b.north));
}

export const DIRECTIONS = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'];
export const DIRECTIONS_JA = ['北', '北東', '東', '南東', '南', '南西', '西', '北西'];
export const DIRECTIONS_EN = ['north', 'north-east', 'east', 'south-east', 'south', 'south-west', 'west', 'north-west'];

/** A heading in [0, 360); null when it is not a finite number. */
export function normalizeHeading(heading) {
  if (typeof heading !== 'number' || !Number.isFinite(heading)) return null;
  const remainder = heading % 360;
  const normalized = remainder < 0 ? remainder + 360 : remainder;
  return normalized >= 360 ? 0 : normalized + 0; // + 0 turns -0 into 0
}

/** The index (0 = N … 7 = NW) of a heading's 45° sector; a boundary belongs to the point clockwise of it. */
export function directionIndex(heading) {
  const normalized = normalizeHeading(heading);
  if (normalized === null) return null;
  return Math.floor((normalized + 22.5) / 45) % 8;
}

/** The search key of a name: NFD, U+0300–U+036F removed, NFC, lower case, trimmed (PlaceName.key). */
export function nameKey(name) {
  return String(name).normalize('NFD').replace(/[\u0300-\u036f]/g, '').normalize('NFC').toLowerCase().trim();
}

/**
 * The nearest place to (lat, lon): a best-first search over geohash cells (NearestPlaceSearch in Swift). `read`
 * is `async (lower, upper, limit) => places` (places with `lat`, `lon`, `id`, `geohash`, in geohash order).
 * Resolves to `{place, distance, queries, rounds}`; `place` is null when there are no places at all.
 */
export async function nearest(lat, lon, read, { limit = 50, seedPrecision = 4, parallel = 16 } = {}) {
  const queue = []; // farthest first; the nearest is at the end
  const push = (c) => {
    const d = cellDistance(c, lat, lon);
    let low = 0;
    let high = queue.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (queue[mid].d > d) low = mid + 1; else high = mid;
    }
    queue.splice(low, 0, { c, d });
  };
  const readCells = new Map(); // hash → complete?
  const covered = (hash) => { for (let n = 1; n <= hash.length; n++) if (readCells.get(hash.slice(0, n)) === true) return true; return false; };
  const hasReadDescendant = (hash) => { for (const key of readCells.keys()) if (key.length > hash.length && key.startsWith(hash)) return true; return false; };

  for (const a of ALPHABET) push(decode(a));
  let best = null;
  let queries = 0;
  let rounds = 0;
  const seed = cellOf(lat, lon, seedPrecision);
  let batch = [seed, ...neighbours(seed)];
  const better = (p, d) => !best || d < best.distance || (d === best.distance && p.id < best.place.id);
  for (;;) {
    if (batch.length) {
      rounds += 1;
      queries += batch.length;
      const answers = await Promise.all(batch.map((c) => {
        const hash = hashOf(c);
        return read(hash, hash + '~', limit).then((places) => [c, hash, places]);
      }));
      for (const [c, hash, places] of answers) {
        for (const place of places) {
          const d = distance(lat, lon, place.lat, place.lon);
          if (better(place, d)) best = { place, distance: d };
        }
        const complete = places.length < limit || c.precision === MAX_PRECISION;
        readCells.set(hash, complete);
        if (!complete) {
          const last = places[places.length - 1].geohash;
          for (const child of children(c)) {
            if (hashOf(child) >= last.slice(0, child.precision)) push(child);
          }
        }
      }
      batch = [];
    }
    const bound = best ? best.distance : Infinity;
    let horizon = Infinity;
    while (batch.length < parallel && queue.length) {
      const { c, d } = queue[queue.length - 1];
      if (!(d < bound) || d > horizon) break;
      queue.pop();
      const hash = hashOf(c);
      if (covered(hash) || readCells.get(hash) === false) continue;
      const size = cellHeight(c.precision) * 111.2;
      if (hasReadDescendant(hash) && bound < size / 4) {
        for (const child of children(c)) push(child);
      } else {
        if (!batch.length) horizon = 2 * d + 100;
        batch.push(c);
      }
    }
    if (!batch.length) return { place: best ? best.place : null, distance: best ? best.distance : null, queries, rounds };
  }
}

/** Ranks name-search candidates: exact key first, more neighbours within 25 km, then name, country, ID. */
export function rankByName(places, key) {
  return [...places].sort((a, b) => {
    const ea = a.nameKey === key;
    const eb = b.nameKey === key;
    if (ea !== eb) return ea ? -1 : 1;
    if (a.nearby !== b.nearby) return b.nearby - a.nearby;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : a.cc < b.cc ? -1 : a.cc > b.cc ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}
