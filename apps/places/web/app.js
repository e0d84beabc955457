// The places page: where the browser is (geolocation, or a latitude and longitude typed in), the address there
// (reverse geocoding on Kura's range queries, geo.js), the compass direction (deviceorientation, or an angle
// typed in), a name search, and the signed-in user's saved places, live.

import {
  initializeApp, getAuth, getDatabase, onAuthStateChanged, signInWithEmailAndPassword,
  createUserWithEmailAndPassword, signOut,
} from '/sdk/kura.js';
import { DIRECTIONS, DIRECTIONS_EN, DIRECTIONS_JA, directionIndex, normalizeHeading } from './geo.js';
import { reverseGeocode, searchByName, savePlace, removePlace, watchSavedPlaces } from './places.js';
import { STRINGS, initialLanguage } from './i18n.js';

const app = initializeApp({});
const auth = getAuth(app);
const db = getDatabase(app);
const $ = (id) => document.getElementById(id);

const state = { lang: initialLanguage(), point: null, result: null, heading: null, saved: null, user: null,
  status: null, searchResults: null, savedError: null };
const t = (key) => STRINGS[state.lang][key] ?? key;

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'class') node.className = value; else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

const format = (degrees, positive, negative) => `${Math.abs(degrees).toFixed(4)}° ${degrees < 0 ? negative : positive}`;
const coordinates = (lat, lon) => `${format(lat, 'N', 'S')}, ${format(lon, 'E', 'W')}`;
const kilometres = (d) => (d < 10 ? d.toFixed(2) : d < 100 ? d.toFixed(1) : Math.round(d).toLocaleString(state.lang));
const countryName = (cc) => {
  try { return new Intl.DisplayNames([state.lang], { type: 'region' }).of(cc) || cc; } catch { return cc; }
};

// ---- rendering ----

function renderTexts() {
  document.documentElement.lang = state.lang;
  document.title = `${t('title')} · Kura`;
  for (const node of document.querySelectorAll('[data-t]')) node.textContent = t(node.dataset.t);
  $('language').textContent = t('language');
  $('language').lang = state.lang === 'ja' ? 'en' : 'ja';
}

function renderStatus() {
  const status = $('status');
  status.textContent = state.status ? t(state.status.key) + (state.status.detail ? ` ${state.status.detail}` : '') : '';
  status.classList.toggle('warn', Boolean(state.status && state.status.warn));
}

function renderAddress() {
  const box = $('address');
  box.replaceChildren();
  if (state.result === 'loading') {
    box.dataset.state = 'loading';
    box.append(el('div', { class: 'skeleton', 'aria-label': t('searching') }));
    return;
  }
  if (!state.result) {
    box.dataset.state = 'empty';
    box.append(el('p', { class: 'empty' }, t('empty')));
    return;
  }
  if (state.result.error) {
    box.dataset.state = 'error';
    box.append(el('p', { class: 'error' }, state.result.error));
    return;
  }
  const { place, distance, lat, lon } = state.result;
  if (!place) {
    box.dataset.state = 'error';
    box.append(el('p', { class: 'error' }, t('noPlaces')));
    return;
  }
  box.dataset.state = 'ready';
  const row = (key, value, extra = {}) => [el('dt', {}, t(key)), el('dd', extra, value || '—')];
  const list = el('dl', {},
    ...row('city', place.name, { class: 'city', 'data-field': 'city' }),
    ...row('admin2', place.admin2, { 'data-field': 'admin2' }),
    ...row('admin1', place.admin1, { 'data-field': 'admin1' }),
    ...row('country', `${countryName(place.cc)} (${place.cc})`, { 'data-field': 'country' }),
    ...row('distance', `${kilometres(distance)} ${t('km')}`, { 'data-field': 'distance' }),
    ...row('coordinates', coordinates(lat, lon), { 'data-field': 'coordinates' }),
    ...row('placeAt', coordinates(place.lat, place.lon), { 'data-field': 'placeAt' }));
  if (distance > 20) list.append(el('p', { class: 'note' }, t('nearestAtSea')));
  box.append(list);
}

function renderHeading() {
  const index = directionIndex(state.heading);
  const needle = $('needle');
  if (index === null) {
    $('direction').textContent = '—';
    needle.style.transform = '';
    return;
  }
  const heading = normalizeHeading(state.heading);
  needle.style.transform = `rotate(${heading}deg)`;
  const name = state.lang === 'ja' ? DIRECTIONS_JA[index] : DIRECTIONS_EN[index];
  $('direction').replaceChildren(`${DIRECTIONS[index]} · ${DIRECTIONS_JA[index]}`,
    el('small', {}, `${Math.round(heading)}° ${state.lang === 'ja' ? '' : name}`.trim()));
  $('direction').dataset.abbreviation = DIRECTIONS[index];
}

function renderSearch() {
  const list = $('search-results');
  list.replaceChildren();
  if (state.searchResults === 'loading') { list.append(el('li', {}, t('searching'))); return; }
  if (!state.searchResults) return;
  if (state.searchResults.error) { list.append(el('li', { class: 'error' }, state.searchResults.error)); return; }
  if (!state.searchResults.length) { list.append(el('li', {}, t('searchEmpty'))); return; }
  for (const place of state.searchResults) {
    const parts = [place.admin2, place.admin1, place.cc].filter(Boolean).join(', ');
    list.append(el('li', {},
      el('span', {}, place.name, el('small', {}, `${parts} · ${coordinates(place.lat, place.lon)}`)),
      el('button', { type: 'button', class: 'small', onclick: () => lookUp(place.lat, place.lon) }, t('use'))));
  }
}

function renderSaved() {
  const signedIn = Boolean(state.user);
  $('sign-in').hidden = signedIn;
  $('account').hidden = !signedIn;
  $('save-button').disabled = !state.point;
  if (!signedIn) return;
  $('who').textContent = state.user.email || state.user.uid;
  const list = $('saved-list');
  const message = state.savedError ? el('li', { class: 'error' }, state.savedError)
    : state.saved === null ? el('li', {}, t('searching'))
      : !state.saved.length ? el('li', { class: 'empty' }, t('savedEmpty')) : null;
  if (message) { list.replaceChildren(message); savedItems = new Map(); return; }
  // A place's item is kept while what it shows is the same, so a redraw (a lookup, a place saved elsewhere) never
  // takes its buttons from under the pointer or the keyboard focus.
  const kept = new Map();
  state.saved.forEach((item, index) => {
    const key = JSON.stringify([state.lang, item.label, item.place?.name, item.place?.cc, item.lat, item.lon]);
    let saved = savedItems.get(item.id);
    if (!saved || saved.key !== key) saved = { key, element: savedItem(item) };
    kept.set(item.id, saved);
    if (list.children[index] !== saved.element) list.insertBefore(saved.element, list.children[index] ?? null);
  });
  while (list.children.length > state.saved.length) list.lastElementChild.remove();
  savedItems = kept;
}

let savedItems = new Map();   // saved place ID → { key, element }, kept across redraws

function savedItem(item) {
  const where = item.place ? `${item.place.name}, ${item.place.cc} · ` : '';
  return el('li', { 'data-id': item.id },
    el('span', {}, item.label, el('small', {}, where + coordinates(item.lat, item.lon))),
    el('span', { class: 'row' },
      el('button', { type: 'button', class: 'small', onclick: () => lookUp(item.lat, item.lon) }, t('use')),
      el('button', { type: 'button', class: 'small ghost', 'aria-label': `${t('remove')}: ${item.label}`,
        onclick: () => removePlace(db, state.user.uid, item.id) }, t('remove'))));
}

function render() { renderTexts(); renderStatus(); renderAddress(); renderHeading(); renderSearch(); renderSaved(); }

// ---- location ----

async function lookUp(lat, lon) {
  state.point = { lat, lon };
  $('lat').value = String(lat);
  $('lon').value = String(lon);
  state.result = 'loading';
  renderAddress();
  renderSaved();
  try {
    const found = await reverseGeocode(db, lat, lon);
    if (state.point.lat !== lat || state.point.lon !== lon) return; // a newer lookup is under way
    state.result = { ...found, lat, lon };
  } catch (error) {
    state.result = { error: `${t('error')}: ${error.message || error}` };
  }
  renderAddress();
}

function showManualEntry(key) {
  state.status = { key, warn: true };
  renderStatus();
  $('lat').focus();
}

function locate() {
  if (!('geolocation' in navigator)) { showManualEntry('unavailable'); return; }
  state.status = { key: 'locating' };
  renderStatus();
  navigator.geolocation.getCurrentPosition((position) => {
    state.status = null;
    renderStatus();
    lookUp(position.coords.latitude, position.coords.longitude);
  }, (error) => {
    showManualEntry(error.code === error.PERMISSION_DENIED ? 'denied' : 'unavailable');
  }, { enableHighAccuracy: false, timeout: 15000, maximumAge: 60000 });
}

$('locate').addEventListener('click', locate);
$('manual').addEventListener('submit', (event) => {
  event.preventDefault();
  const lat = Number($('lat').value.trim().replace(',', '.'));
  const lon = Number($('lon').value.trim().replace(',', '.'));
  if (!$('lat').value.trim() || !$('lon').value.trim() || !Number.isFinite(lat) || !Number.isFinite(lon)
      || Math.abs(lat) > 90 || Math.abs(lon) > 180) {
    state.status = { key: 'badCoordinates', warn: true };
    renderStatus();
    return;
  }
  state.status = null;
  renderStatus();
  lookUp(lat, lon);
});

// Ask for the position at once only when the browser already allows it; otherwise the button asks.
if (navigator.permissions && navigator.geolocation) {
  navigator.permissions.query({ name: 'geolocation' }).then((permission) => {
    if (permission.state === 'granted') locate();
    else if (permission.state === 'denied') showManualEntry('denied');
  }, () => {});
} else if (!navigator.geolocation) {
  state.status = { key: 'unavailable', warn: true };
}

// ---- heading ----

function onOrientation(event) {
  let heading = null;
  if (typeof event.webkitCompassHeading === 'number') heading = event.webkitCompassHeading; // Safari: degrees from north
  else if (typeof event.alpha === 'number') heading = 360 - event.alpha; // alpha turns counter-clockwise
  if (heading === null) return;
  state.heading = heading;
  $('compass-permission').hidden = true;
  $('heading-input').value = String(Math.round(normalizeHeading(heading)));
  $('heading-status').textContent = '';
  renderHeading();
}

// Android's deviceorientation is relative to where the page started; its absolute event is the compass. So once an
// absolute reading with data has come, relative ones are ignored; without one, the relative alpha is all there is.
let absoluteReadings = false;
function listenToCompass() {
  window.addEventListener('deviceorientationabsolute', (event) => {
    if (typeof event.alpha === 'number') { absoluteReadings = true; onOrientation(event); }
  });
  window.addEventListener('deviceorientation', (event) => {
    if (event.absolute || !absoluteReadings || typeof event.webkitCompassHeading === 'number') onOrientation(event);
  });
}

if (typeof DeviceOrientationEvent === 'undefined') {
  $('heading-status').textContent = t('headingNone');
} else {
  listenToCompass();
  // Safari sends no events until the page asks on a tap; other browsers that have the call answer at once.
  if (typeof DeviceOrientationEvent.requestPermission === 'function') {
    $('compass-permission').hidden = false;
    $('compass-permission').addEventListener('click', async () => {
      try {
        if (await DeviceOrientationEvent.requestPermission() !== 'granted') $('heading-status').textContent = t('headingNone');
      } catch { $('heading-status').textContent = t('headingNone'); }
      $('compass-permission').hidden = true;
    });
  }
}
$('heading-input').addEventListener('input', () => {
  const value = Number($('heading-input').value);
  state.heading = $('heading-input').value.trim() === '' ? null : value;
  renderHeading();
});

// ---- search ----

$('search').addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = $('search-input').value;
  if (!text.trim()) return;
  state.searchResults = 'loading';
  renderSearch();
  try { state.searchResults = await searchByName(db, text); } catch (error) {
    state.searchResults = { error: `${t('error')}: ${error.message || error}` };
  }
  renderSearch();
});

// ---- account and saved places ----

let stopWatching = null;
onAuthStateChanged(auth, (user) => {
  state.user = user;
  if (stopWatching) { stopWatching(); stopWatching = null; }
  state.saved = null;
  state.savedError = null;
  if (user) {
    stopWatching = watchSavedPlaces(db, user.uid, (list) => { state.saved = list; renderSaved(); },
      (error) => { state.savedError = `${t('error')}: ${error.message || error}`; renderSaved(); });
  }
  renderSaved();
});

async function authenticate(create) {
  $('auth-error').textContent = '';
  const email = $('email').value.trim();
  const password = $('password').value;
  try {
    if (create) await createUserWithEmailAndPassword(auth, email, password);
    else await signInWithEmailAndPassword(auth, email, password);
  } catch (error) {
    $('auth-error').textContent = error.code || error.message || String(error);
  }
}
$('sign-in').addEventListener('submit', (event) => { event.preventDefault(); authenticate(false); });
$('sign-up').addEventListener('click', () => { if ($('sign-in').reportValidity()) authenticate(true); });
$('sign-out').addEventListener('click', () => signOut(auth));
$('save').addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!state.user || !state.point) return;
  const place = state.result && state.result.place
    ? { name: state.result.place.name, cc: state.result.place.cc, admin1: state.result.place.admin1 || '' } : null;
  try {
    await savePlace(db, state.user.uid, { label: $('save-label').value.trim(), lat: state.point.lat, lon: state.point.lon, place });
    $('save-label').value = '';
  } catch (error) {
    state.savedError = `${t('error')}: ${error.message || error}`;
    renderSaved();
  }
});

$('language').addEventListener('click', () => {
  state.lang = state.lang === 'ja' ? 'en' : 'ja';
  localStorage.setItem('places.lang', state.lang);
  render();
});

render();
window.placesReady = true;
