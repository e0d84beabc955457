// The calculator web app: the keypad and keyboard on the engine (engine.js), and the history of a signed-in user's
// calculations in Kura at calc/{uid}/history/{id} (apps/calc/calc.rules), cached offline in IndexedDB by kura.js, so
// that the history and Ans follow the user from device to device. Without an account the history stays in
// localStorage.

import {
  initializeApp, getAuth, getDatabase, onAuthStateChanged, createUserWithEmailAndPassword,
  signInWithEmailAndPassword, signOut, collection, doc, addDoc, query, orderBy, limit, onSnapshot, serverTimestamp,
  writeBatch,
} from '/sdk/kura.js';
import * as engine from './engine.js';
import { Decimal } from './decimal.js';
import { STRINGS, initialLanguage } from './strings.js';

const HISTORY_LENGTH = 50;
const LOCAL_HISTORY = 'calc.history';
const GUEST = 'calc.guest';

const app = initializeApp({ persistence: 'indexeddb' });
const auth = getAuth(app);
const db = getDatabase(app);

const $ = (id) => document.getElementById(id);
const state = {
  language: initialLanguage(),
  calculator: new engine.Calculator(),
  notice: null,
  editing: null, // the ordinal of the number being edited
  user: undefined, // undefined until the first auth state, then a User or null
  history: { status: 'loading', entries: [], error: null },
  saveError: null,
  unsubscribe: null,
  appliedAnswer: null, // the history entry whose result Ans was last set from
};

const text = () => STRINGS[state.language];

// ---- Keypad ----------------------------------------------------------------------------------------------------

const KEYPAD = [
  ['AC', 'fn'], ['DEL', 'fn'], ['(', 'op'], [')', 'op'],
  ['7'], ['8'], ['9'], ['/', 'op', '÷'],
  ['4'], ['5'], ['6'], ['*', 'op', '×'],
  ['1'], ['2'], ['3'], ['-', 'op', '−'],
  ['0'], ['.'], ['Ans', 'fn'], ['+', 'op'],
  ['=', 'equals'],
];

function buildKeypad() {
  const keypad = $('keypad');
  keypad.replaceChildren(...KEYPAD.map(([name, kind, face]) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.key = name;
    button.textContent = face ?? name;
    if (kind) button.classList.add(kind);
    button.addEventListener('click', () => press(name));
    return button;
  }));
}

/** Presses a key: the engine's rules, then the history when a calculation finished. */
function press(name) {
  state.editing = null;
  const before = state.calculator.outcome;
  state.notice = state.calculator.press(name);
  afterChange(before);
}

function afterChange(before) {
  const outcome = state.calculator.outcome;
  if (outcome?.value && outcome !== before) {
    record(state.calculator.formula, outcome.value.toString());
  }
  render();
}

const KEYBOARD = {
  Enter: '=', '=': '=', Backspace: 'DEL', Delete: 'DEL', Escape: 'AC', a: 'Ans', A: 'Ans',
  x: '*', X: '*', '×': '*', '÷': '/',
};

function onKeyDown(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target instanceof HTMLInputElement) return; // the sign-in form and the number editor handle their own keys
  let name = KEYBOARD[event.key] ?? event.key;
  if (!/^[0-9]$/.test(name) && !['.', '+', '-', '*', '/', '(', ')', '=', 'DEL', 'AC', 'Ans'].includes(name)) return;
  // Space and Enter on a focused history/account button keep their meaning; Enter elsewhere always calculates.
  if (event.key === 'Enter' && target instanceof HTMLButtonElement && !target.closest('#keypad')) return;
  event.preventDefault();
  press(name);
  flash(name);
}

function flash(name) {
  const button = $('keypad').querySelector(`[data-key="${CSS.escape(name)}"]`);
  if (!button) return;
  button.classList.add('pressed');
  setTimeout(() => button.classList.remove('pressed'), 120);
}

// ---- Editing a number inside the formula ----------------------------------------------------------------------

function startEditing(ordinal) {
  state.editing = ordinal;
  render();
  const input = $('formula').querySelector('input');
  input?.focus();
  input?.select();
}

function finishEditing(input, apply) {
  const ordinal = state.editing;
  state.editing = null;
  if (apply) {
    const before = state.calculator.outcome;
    state.notice = state.calculator.edit(ordinal, input.value.trim());
    afterChange(before);
  } else {
    render();
  }
  $('formula').querySelector(`[data-ordinal="${ordinal}"]`)?.focus();
}

// ---- History ---------------------------------------------------------------------------------------------------

function historyCollection(uid) {
  return collection(db, 'calc', uid, 'history');
}

async function record(formula, result) {
  state.saveError = null;
  if (state.user) {
    try {
      await addDoc(historyCollection(state.user.uid), { formula, result, createdAt: serverTimestamp() });
    } catch (error) {
      state.saveError = error.message;
      render();
    }
    return;
  }
  const entries = [{ id: `local-${Date.now()}`, formula, result }, ...readLocalHistory()].slice(0, HISTORY_LENGTH);
  localStorage.setItem(LOCAL_HISTORY, JSON.stringify(entries));
  showHistory(entries);
}

function readLocalHistory() {
  try {
    const entries = JSON.parse(localStorage.getItem(LOCAL_HISTORY) ?? '[]');
    const valid = (e) => typeof e?.formula === 'string' && typeof e?.result === 'string';
    return Array.isArray(entries) ? entries.filter(valid) : [];
  } catch {
    return [];
  }
}

/** Shows `entries` (newest first); Ans becomes the newest result when it is new here (e.g. from another device). */
function showHistory(entries) {
  state.history = { status: 'ready', entries, error: null };
  const newest = entries[0];
  if (newest && newest.id !== state.appliedAnswer) {
    state.appliedAnswer = newest.id;
    const value = Decimal.parse(newest.result);
    if (value) state.calculator.answer = value;
  }
  render();
}

function listenToHistory(user) {
  state.unsubscribe?.();
  state.unsubscribe = null;
  state.appliedAnswer = null;
  if (!user) {
    showHistory(readLocalHistory());
    return;
  }
  state.history = { status: 'loading', entries: [], error: null };
  render();
  const recent = query(historyCollection(user.uid), orderBy('createdAt', 'desc'), limit(HISTORY_LENGTH));
  state.unsubscribe = onSnapshot(recent, { includeMetadataChanges: true }, (snapshot) => {
    showHistory(snapshot.docs.map((d) => ({
      id: d.id, formula: String(d.get('formula') ?? ''), result: String(d.get('result') ?? ''),
      pending: d.metadata.hasPendingWrites,
    })));
  }, (error) => {
    state.history = { status: 'error', entries: [], error: error.message };
    render();
  });
}

async function clearHistory() {
  if (!state.user) {
    localStorage.removeItem(LOCAL_HISTORY);
    showHistory([]);
    return;
  }
  const batch = writeBatch(db);
  for (const entry of state.history.entries) batch.delete(doc(historyCollection(state.user.uid), entry.id));
  try {
    await batch.commit();
  } catch (error) {
    state.saveError = error.message;
    render();
  }
}

// ---- Accounts --------------------------------------------------------------------------------------------------

async function authenticate(create) {
  const email = $('email').value.trim();
  const password = $('password').value;
  const error = $('auth-error');
  error.textContent = '';
  for (const button of $('auth-form').querySelectorAll('button')) button.disabled = true;
  try {
    if (create) await createUserWithEmailAndPassword(auth, email, password);
    else await signInWithEmailAndPassword(auth, email, password);
    $('password').value = '';
  } catch (failure) {
    error.textContent = text().authErrors[failure.code] ?? failure.message;
  } finally {
    for (const button of $('auth-form').querySelectorAll('button')) button.disabled = false;
  }
}

// ---- Rendering -------------------------------------------------------------------------------------------------

function renderFormula() {
  const formula = $('formula');
  const t = text();
  formula.setAttribute('aria-label', t.formulaLabel);
  const tokens = state.calculator.tokens;
  if (tokens.length === 0) {
    const placeholder = document.createElement('span');
    placeholder.className = 'placeholder';
    placeholder.textContent = '0';
    formula.replaceChildren(placeholder);
    return;
  }
  let ordinal = 0;
  const parts = [];
  for (const token of tokens) {
    if (token.type !== 'number') {
      parts.push(document.createTextNode(engine.tokenText(token)));
      continue;
    }
    const current = ordinal++;
    if (state.editing === current) {
      const input = document.createElement('input');
      input.value = token.text;
      input.inputMode = 'decimal';
      input.setAttribute('aria-label', t.editInputLabel);
      input.addEventListener('keydown', (event) => {
        if (event.key === 'Enter') finishEditing(input, true);
        else if (event.key === 'Escape') finishEditing(input, false);
        else return;
        event.preventDefault();
      });
      input.addEventListener('blur', () => {
        if (state.editing === current) finishEditing(input, true);
      });
      parts.push(input);
    } else {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'number';
      button.dataset.ordinal = String(current);
      button.textContent = token.text;
      button.setAttribute('aria-label', t.editLabel(token.text));
      button.addEventListener('click', () => startEditing(current));
      parts.push(button);
    }
  }
  formula.replaceChildren(...parts);
}

function renderResult() {
  const result = $('result');
  const outcome = state.calculator.outcome;
  result.classList.toggle('error', !!outcome?.error);
  result.setAttribute('aria-label', text().resultLabel);
  if (outcome?.error) result.textContent = text().messages[outcome.error];
  else if (outcome?.value) result.textContent = outcome.value.toString();
  else result.textContent = '';
  result.style.setProperty('--chars', String(Math.max(8, result.textContent.length)));
  $('notice').textContent = state.notice ? text().messages[state.notice] : '';
}

function renderAccount() {
  const signedIn = !!state.user;
  const guest = !signedIn && localStorage.getItem(GUEST) === '1';
  $('account-status').hidden = !signedIn;
  $('auth-form').hidden = signedIn || guest || state.user === undefined;
  $('guest-status').hidden = !guest;
  if (signedIn) $('signed-in-as').textContent = text().signedInAs(state.user.email);
}

function renderHistory() {
  const t = text();
  const { status, entries, error } = state.history;
  $('history-mode').textContent = state.user ? t.historySynced : t.historyLocal;
  const stateLine = $('history-state');
  stateLine.classList.toggle('error', status === 'error' || !!state.saveError);
  if (status === 'loading') stateLine.textContent = t.historyLoading;
  else if (status === 'error') stateLine.textContent = t.historyError(error);
  else if (state.saveError) stateLine.textContent = t.historySaveError(state.saveError);
  else if (entries.length === 0) stateLine.textContent = t.historyEmpty;
  else stateLine.textContent = '';
  $('clear-history').hidden = entries.length === 0;
  $('history').replaceChildren(...entries.map((entry) => {
    const item = document.createElement('li');
    item.dataset.id = entry.id;
    const formula = document.createElement('span');
    formula.className = 'h-formula';
    formula.textContent = entry.formula;
    const result = document.createElement('span');
    result.className = 'h-result';
    result.textContent = `= ${entry.result}`;
    const row = document.createElement('div');
    row.className = 'h-row';
    row.append(formula, result);
    if (entry.pending) {
      const pending = document.createElement('span');
      pending.className = 'h-pending';
      pending.textContent = t.pending;
      row.append(pending);
    }
    item.append(row);
    return item;
  }));
}

function renderTexts() {
  const t = text();
  document.documentElement.lang = state.language;
  document.title = `${t.title} · Kura`;
  for (const element of document.querySelectorAll('[data-text]')) element.textContent = t[element.dataset.text];
  const language = $('language');
  language.textContent = t.switchLanguage;
  language.setAttribute('aria-label', t.switchLanguageLabel);
  language.lang = state.language === 'ja' ? 'en' : 'ja';
  $('keypad').setAttribute('aria-label', t.keypadLabel);
  for (const button of $('keypad').querySelectorAll('button')) {
    button.setAttribute('aria-label', t.keyLabels[button.dataset.key] ?? button.textContent);
  }
}

function render() {
  renderTexts();
  renderFormula();
  renderResult();
  renderAccount();
  renderHistory();
}

// ---- Start -----------------------------------------------------------------------------------------------------

buildKeypad();
document.addEventListener('keydown', onKeyDown);
$('language').addEventListener('click', () => {
  state.language = state.language === 'ja' ? 'en' : 'ja';
  localStorage.setItem('calc.language', state.language);
  render();
});
$('auth-form').addEventListener('submit', (event) => {
  event.preventDefault();
  authenticate(false);
});
$('sign-up').addEventListener('click', () => authenticate(true));
$('guest').addEventListener('click', () => {
  localStorage.setItem(GUEST, '1');
  render();
});
$('show-sign-in').addEventListener('click', () => {
  localStorage.removeItem(GUEST);
  render();
  $('email').focus();
});
$('sign-out').addEventListener('click', () => signOut(auth));
$('clear-history').addEventListener('click', clearHistory);
onAuthStateChanged(auth, (user) => {
  const changed = state.user?.uid !== user?.uid;
  state.user = user;
  if (user) localStorage.removeItem(GUEST);
  if (changed || state.history.status === 'loading') listenToHistory(user);
  render();
});
render();

/** For the browser test (Tests/Browser/suite_calc.py): the engine and the app's state. */
window.calc = { engine, state, ready: true };
