// 単語帳 — Notebooks: sign up with a verified address, notebooks of words and explanations, live in every tab,
// and one search over all of them with notebook tokens. Plain ES module on kura.js (served by Kura at
// /sdk/kura.js); its own files by relative URL, so it works wherever it is mounted.
import {
  initializeApp, getAuth, getDatabase, onAuthStateChanged, signInWithEmailAndPassword,
  createUserWithEmailAndPassword, sendEmailVerification, signOut, collection, doc, getDoc, getDocs, addDoc,
  updateDoc, deleteDoc, writeBatch, runTransaction, onSnapshot, query, where, getCountFromServer,
} from '/sdk/kura.js';
import { initialLanguage, translator } from './strings.js';
import {
  normalize, trimSpace, nameProblem, nameKey, wordProblem, search, notebookForToken, deletePlan,
} from './logic.js';

const app = initializeApp({});
const auth = getAuth(app);
const db = getDatabase(app);

const main = document.getElementById('main');
const status = document.getElementById('status');
const COMMIT_LIMIT = 500;

let lang = initialLanguage(localStorage, navigator.languages || [navigator.language]);
let t = translator(lang);

const state = {
  user: undefined,            // undefined while the session is restored; null when signed out
  phase: 'loading',           // 'loading' | 'signedOut' | 'unverified' | 'app'
  authMode: 'signin',
  notice: '',                 // a sentence shown on the sign-in screen (a session that ended elsewhere)
  signingOut: false,
  notebooks: null,            // [{id, name, nameKey, createdAt}] sorted by name, once loaded
  notebooksError: false,
  words: null,                // [{id, notebook, word, explanation, createdAt}], once loaded
  wordsError: false,
  tokens: [],                 // notebook IDs the search is narrowed to
  text: '',
  editing: null,              // the ID of the word being edited
  renaming: false,
};
let unsubscribers = [];
let verifyTimer = null;

// ---------- small helpers ----------

function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') element.className = value;
    else if (key.startsWith('on')) element.addEventListener(key.slice(2), value);
    else if (key === 'text') element.textContent = value;
    else element.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

function announce(message) {
  status.textContent = '';
  // A fresh text node each time, so screen readers announce a repeated message too.
  setTimeout(() => { status.textContent = message; }, 30);
  clearTimeout(announce.timer);
  announce.timer = setTimeout(() => { status.textContent = ''; }, 6000);
}

function errorSentence(error) {
  switch (error && error.code) {
    case 'auth/email-already-in-use': return t('errEmailInUse');
    case 'auth/invalid-email': return t('errInvalidEmail');
    case 'auth/weak-password': case 'auth/missing-password': return t('errWeakPassword');
    case 'auth/invalid-credential': case 'auth/user-not-found': case 'auth/wrong-password':
    case 'auth/user-disabled': return t('errCredentials');
    case 'auth/too-many-requests': case 'resource-exhausted': return t('errTooMany');
    case 'auth/network-request-failed': case 'unavailable': case 'deadline-exceeded': return t('errNetwork');
    case 'permission-denied': return t('errDenied');
    case 'notes/name-taken': return t('errNameTaken', { name: error.name });
    case 'notes/notebook-gone': case 'not-found': return t('errNotebookGone');
    default: return t('errUnknown');
  }
}

function notesError(code, extra = {}) { return Object.assign(new Error(code), { code, ...extra }); }

const col = (...path) => collection(db, 'notes', state.user.uid, ...path);
const notebookRef = (id) => doc(db, 'notes', state.user.uid, 'notebooks', id);
const nameRef = (key) => doc(db, 'notes', state.user.uid, 'notebookNames', key);

function routeNotebook() {
  const match = /^#\/n\/([^/]+)$/.exec(location.hash);
  return match ? decodeURIComponent(match[1]) : null;
}

function focusHeading() {
  const heading = main.querySelector('h1');
  if (heading) { heading.setAttribute('tabindex', '-1'); heading.focus(); }
}

function field(id, label, input, hint) {
  if (hint) input.setAttribute('aria-describedby', `${id}-hint`);
  return h('div', { class: 'field' }, h('label', { for: id, text: label }), input,
    hint ? h('p', { class: 'hint', id: `${id}-hint`, text: hint }) : null);
}

/** The confirmation dialog: resolves true when the person confirms. */
function confirmDialog(title, body, extra = '', ok = t('delete')) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-body').textContent = body;
  document.getElementById('confirm-extra').textContent = extra;
  document.getElementById('confirm-ok').textContent = ok;
  document.getElementById('confirm-cancel').textContent = t('cancel');
  const opener = document.activeElement;
  status.textContent = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'ok');
      if (opener && opener.isConnected) opener.focus();
    }, { once: true });
    dialog.returnValue = '';
    dialog.showModal();
    document.getElementById('confirm-cancel').focus();
  });
}

const SVG = 'http://www.w3.org/2000/svg';

/** A small drawn picture for a state (no emoji: they depend on the system's fonts). */
function icon(kind) {
  const paths = {
    mail: ['M4 7h16v11H4z', 'm4 7 8 6 8-6'],
    book: ['M5 5h9a3 3 0 0 1 3 3v11H8a3 3 0 0 1-3-3z', 'M9 10h5M9 14h5', 'M17 8h2v11h-2'],
  };
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', 'state-icon');
  svg.setAttribute('aria-hidden', 'true');
  for (const d of paths[kind]) {
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('d', d);
    svg.append(path);
  }
  return svg;
}

// ---------- the header ----------

function drawHeader() {
  document.documentElement.lang = lang;
  document.title = t('appName') + (lang === 'ja' ? ' — Notebooks' : ' — 単語帳');
  for (const element of document.querySelectorAll('[data-text]')) element.textContent = t(element.dataset.text);
  const switcher = document.getElementById('lang-switch');
  switcher.textContent = t('switchLanguage');
  switcher.setAttribute('lang', lang === 'ja' ? 'en' : 'ja');
  switcher.setAttribute('aria-label', t('switchLanguageLabel'));
  const signedIn = !!state.user;
  document.getElementById('sign-out').hidden = !signedIn;
  document.getElementById('who').textContent = signedIn ? t('signedInAs', { email: state.user.email }) : '';
}

document.getElementById('lang-switch').addEventListener('click', () => {
  lang = lang === 'ja' ? 'en' : 'ja';
  localStorage.setItem('notes.lang', lang);
  t = translator(lang);
  drawHeader();
  draw({ keepFocus: true });
});

document.getElementById('sign-out').addEventListener('click', async () => {
  state.signingOut = true;
  try { await signOut(auth); } catch { /* signed out here all the same */ }
  announce(t('signedOut'));
});

// ---------- screens ----------

function draw({ keepFocus = false } = {}) {
  const focusedId = keepFocus && document.activeElement ? document.activeElement.id : null;
  if (state.phase === 'loading') {
    main.setAttribute('aria-busy', 'true');
    main.replaceChildren(h('section', { class: 'state' }, h('p', { class: 'loading-line', text: t('loading') })));
  } else if (state.phase === 'signedOut') {
    drawAuth();
  } else if (state.phase === 'unverified') {
    drawVerify();
  } else {
    drawApp();
  }
  if (state.phase !== 'loading') main.removeAttribute('aria-busy');
  if (focusedId) document.getElementById(focusedId)?.focus();
}

function drawAuth() {
  const signup = state.authMode === 'signup';
  const message = h('p', { class: 'error', id: 'form-error', role: 'alert' });
  const email = h('input', { id: 'email', type: 'email', autocomplete: 'email', required: true });
  const password = h('input', {
    id: 'password', type: 'password', required: true, minlength: 6,
    autocomplete: signup ? 'new-password' : 'current-password',
  });
  const show = h('input', {
    type: 'checkbox', id: 'show-password',
    onchange: () => { password.type = show.checked ? 'text' : 'password'; },
  });
  const submit = h('button', { type: 'submit', class: 'button primary', id: 'submit', text: signup ? t('signUp') : t('signIn') });
  const form = h('form', {
    class: 'form', novalidate: true,
    onsubmit: async (event) => {
      event.preventDefault();
      message.textContent = '';
      if (!email.value.trim()) { message.textContent = t('errInvalidEmail'); email.focus(); return; }
      if (signup && password.value.length < 6) {
        message.textContent = t('errWeakPassword');
        password.setAttribute('aria-invalid', 'true');
        password.focus();
        return;
      }
      submit.disabled = true;
      submit.textContent = t('working');
      try {
        state.notice = '';
        if (signup) {
          // The server mails the verification link on sign-up (auth.sendVerificationOnSignUp); the
          // sendEmailVerification a Firebase app calls next sends nothing then, and one where it is off.
          const result = await createUserWithEmailAndPassword(auth, email.value.trim(), password.value);
          await sendEmailVerification(result.user).catch(() => {});
        } else {
          await signInWithEmailAndPassword(auth, email.value.trim(), password.value);
        }
      } catch (error) {
        message.textContent = errorSentence(error);
        submit.disabled = false;
        submit.textContent = signup ? t('signUp') : t('signIn');
        (error.code === 'auth/weak-password' ? password : email).focus();
      }
    },
  },
  field('email', t('email'), email),
  field('password', t('password'), password, t('passwordHint')),
  h('div', { class: 'check' }, show, h('label', { for: 'show-password', text: t('showPassword') })),
  signup ? h('p', { class: 'lead', text: t('signUpNote') }) : null,
  message, h('div', { class: 'actions' }, submit));
  const tab = (mode, label) => h('button', {
    type: 'button', id: `to-${mode}`, 'aria-pressed': String(state.authMode === mode), text: label,
    onclick: () => { state.authMode = mode; draw(); document.getElementById('email').focus(); },
  });
  main.replaceChildren(h('div', { class: 'auth-grid' },
    h('section', { class: 'intro' },
      h('h1', { text: signup ? t('signUpTitle') : t('signInTitle') }),
      h('p', { class: 'lead', text: t('authLead') }),
      state.notice ? h('p', { class: 'note', id: 'notice', role: 'alert', text: state.notice }) : null),
    h('section', { class: 'panel' },
      h('div', { class: 'tabs', role: 'group', 'aria-label': t('signInTitle') },
        tab('signin', t('tabSignIn')), tab('signup', t('tabSignUp'))),
      form)));
}

function drawVerify() {
  const message = h('p', { id: 'verify-message', role: 'status', 'aria-live': 'polite' });
  const check = h('button', {
    type: 'button', class: 'button primary', id: 'verified', text: t('verifiedButton'),
    onclick: async () => {
      check.disabled = true;
      message.textContent = t('working');
      const verified = await checkVerified();
      check.disabled = false;
      if (verified === false) message.textContent = t('notVerifiedYet');
      else if (verified === null) message.textContent = t('errNetwork');
    },
  });
  const resend = h('button', {
    type: 'button', class: 'button', id: 'resend', text: t('resend'),
    onclick: async () => {
      resend.disabled = true;
      try {
        await sendEmailVerification(state.user);
        message.textContent = t('resent');
      } catch (error) {
        message.textContent = errorSentence(error);
      }
      resend.disabled = false;
    },
  });
  main.replaceChildren(h('section', { class: 'panel narrow verify' },
    icon('mail'),
    h('h1', { text: t('verifyTitle') }),
    h('p', { text: t('verifyLead', { email: state.user.email }) }),
    h('p', { class: 'lead', text: t('verifyWhy') }),
    h('div', { class: 'actions' }, check, resend),
    message));
}

/** Reads the account again; true once verified (the app starts), false if not yet, null when it failed. */
async function checkVerified() {
  const user = state.user;
  if (!user) return null;
  try {
    await user.reload();
    if (!user.emailVerified) return false;
    // A fresh ID token says email_verified too (the rules read the account as it is now either way).
    await user.getIdToken(true);
    if (state.user !== user) return null;
    announce(t('verifiedNow'));
    startApp();
    return true;
  } catch {
    return null;
  }
}

// ---------- the app: notebooks, words, search ----------

let shell = null;   // the app's persistent elements, so live updates keep focus and what is typed
let notebookItems = new Map();   // notebook ID → its <li> in the notebook list, kept across updates

function drawApp() {
  if (!shell || !shell.root.isConnected || shell.lang !== lang) shell = buildShell();
  if (!main.contains(shell.root)) main.replaceChildren(shell.root);
  refresh();
}

function buildShell() {
  const createInput = h('input', { id: 'new-notebook', type: 'text', autocomplete: 'off', maxlength: 200 });
  const createError = h('p', { class: 'error', id: 'create-error', role: 'alert' });
  const createButton = h('button', { type: 'submit', class: 'button primary', id: 'create', text: t('create') });
  const createForm = h('form', {
    class: 'create', novalidate: true,
    onsubmit: async (event) => {
      event.preventDefault();
      createError.textContent = '';
      createInput.removeAttribute('aria-invalid');
      createButton.disabled = true;
      const typed = createInput.value;
      try {
        const { id, name } = await createNotebook(typed);
        // Only what was submitted is cleared: a name typed meanwhile stays.
        if (createInput.value === typed) createInput.value = '';
        announce(t('created', { name }));
        location.hash = `#/n/${encodeURIComponent(id)}`;
      } catch (error) {
        createError.textContent = error.code === 'notes/blank' ? t('errBlankName')
          : error.code === 'notes/too-long' ? t('errLongName') : errorSentence(error);
        createInput.setAttribute('aria-invalid', 'true');
        createInput.focus();
      } finally {
        createButton.disabled = false;
      }
    },
  },
  h('label', { for: 'new-notebook', text: t('newNotebook') }),
  h('div', { class: 'inline' }, createInput, createButton),
  h('p', { class: 'hint', id: 'new-notebook-hint', text: t('notebookNameHint') }),
  createError);
  createInput.setAttribute('aria-describedby', 'new-notebook-hint create-error');

  const list = h('ul', { class: 'notebook-list', id: 'notebook-list' });
  const sidebar = h('nav', { class: 'sidebar panel', 'aria-labelledby': 'notebooks-heading' },
    h('h2', { id: 'notebooks-heading', text: t('notebooks') }), createForm, h('div', { id: 'notebooks-body' }, list));

  // The search field with its tokens (chips), as UISearchTextField shows them.
  const tokens = h('ul', { class: 'tokens', id: 'tokens', 'aria-label': t('tokensLabel') });
  const input = h('input', {
    id: 'search', type: 'search', autocomplete: 'off', placeholder: t('searchPlaceholder'),
    'aria-describedby': 'search-hint search-offer',
  });
  input.value = state.text;
  input.addEventListener('input', () => { state.text = input.value; refresh(); });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.isComposing) {
      event.preventDefault();
      const notebook = notebookForToken(visibleNotebooks(), input.value);
      if (notebook && !state.tokens.includes(notebook.id)) {
        state.tokens.push(notebook.id);
        state.text = '';
        input.value = '';
        announce(t('tokenAdded', { name: notebook.name }));
        refresh();
      }
    } else if (event.key === 'Backspace' && input.selectionStart === 0 && input.selectionEnd === 0
      && state.tokens.length) {
      event.preventDefault();
      removeToken(state.tokens[state.tokens.length - 1]);
    } else if (event.key === 'Escape' && (input.value || state.tokens.length)) {
      state.text = '';
      input.value = '';
      refresh();
    }
  });
  const searchBox = h('div', { class: 'search', role: 'search' },
    h('label', { for: 'search', class: 'search-label', text: t('searchLabel') }),
    h('div', { class: 'token-field', onclick: (event) => { if (event.target === event.currentTarget) input.focus(); } },
      tokens, input),
    h('p', { class: 'hint', id: 'search-hint', text: t('searchHint') }),
    h('p', { class: 'offer', id: 'search-offer', 'aria-live': 'polite' }));
  const content = h('section', { class: 'content', id: 'content', 'aria-live': 'off' });
  // The search first: on phones it is on top; on wider screens the grid puts the notebooks beside it.
  const root = h('div', { class: 'layout' }, searchBox, sidebar, content);
  return { root, lang, list, tokens, input, content, notebookId: undefined, wordList: null, body: null };
}

function visibleNotebooks() { return state.notebooks || []; }
function notebookById(id) { return visibleNotebooks().find((n) => n.id === id) || null; }
function wordsOf(id) { return (state.words || []).filter((w) => w.notebook === id); }

function removeToken(id) {
  state.tokens = state.tokens.filter((token) => token !== id);
  const notebook = notebookById(id);
  if (notebook) announce(t('tokenRemoved', { name: notebook.name }));
  refresh();
  shell.input.focus();
}

/** Redraws what depends on the data, keeping the elements that hold focus or typing. */
function refresh() {
  if (!shell) return;
  state.tokens = state.tokens.filter((id) => notebookById(id));
  drawNotebookList();
  drawTokens();
  const searching = !!trimSpace(state.text) || state.tokens.length > 0;
  const id = routeNotebook();
  shell.root.classList.toggle('has-notebook', !!id && !searching);
  shell.root.classList.toggle('searching', searching);
  if (searching) drawResults();
  else if (id) drawNotebook(id);
  else drawHome();
}

function drawNotebookList() {
  const body = document.getElementById('notebooks-body');
  if (state.notebooksError) {
    body.replaceChildren(h('div', { class: 'state small' }, h('p', { text: t('notebooksError') }),
      h('button', { type: 'button', class: 'button', text: t('retry'), onclick: () => startApp() })));
    return;
  }
  if (!state.notebooks) {
    body.replaceChildren(h('div', { class: 'skeleton list', 'aria-hidden': 'true' }, h('div'), h('div'), h('div')),
      h('p', { class: 'visually-hidden', text: t('loading') }));
    return;
  }
  if (!state.notebooks.length) {
    body.replaceChildren(h('p', { class: 'empty', id: 'notebooks-empty', text: t('notebooksEmpty') }));
    return;
  }
  const current = routeNotebook();
  // Each notebook's item is kept and updated in place, so a live update never takes a link from under the pointer.
  const kept = new Map();
  const list = shell.list;
  state.notebooks.forEach((notebook, index) => {
    const item = notebookItems.get(notebook.id) ?? h('li', {}, h('a', {
      href: `#/n/${encodeURIComponent(notebook.id)}`, 'data-id': notebook.id,
    }, h('span', { class: 'nb-name' }), h('span', { class: 'count' })));
    const link = item.firstChild;
    if (notebook.id === current) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
    link.querySelector('.nb-name').textContent = notebook.name;
    link.querySelector('.count').textContent = state.words ? t('wordCount', { n: wordsOf(notebook.id).length }) : '';
    kept.set(notebook.id, item);
    if (list.children[index] !== item) list.insertBefore(item, list.children[index] || null);
  });
  while (list.children.length > state.notebooks.length) list.lastElementChild.remove();
  notebookItems = kept;
  if (!body.contains(list)) body.replaceChildren(list);
}

function drawTokens() {
  shell.tokens.replaceChildren(...state.tokens.map((id) => {
    const notebook = notebookById(id);
    return h('li', { class: 'token' }, h('span', { text: notebook.name }), h('button', {
      type: 'button', class: 'token-remove', 'aria-label': t('removeToken', { name: notebook.name }), text: '×',
      onclick: () => removeToken(id),
      onkeydown: (event) => { if (event.key === 'Backspace' || event.key === 'Delete') { event.preventDefault(); removeToken(id); } },
    }));
  }));
  shell.tokens.hidden = !state.tokens.length;
  const offer = document.getElementById('search-offer');
  const notebook = trimSpace(state.text) ? notebookForToken(visibleNotebooks(), state.text) : null;
  const text = notebook && !state.tokens.includes(notebook.id) ? t('tokenOffer', { name: notebook.name }) : '';
  if (offer.textContent !== text) offer.textContent = text;
}

function setContent(kind, ...nodes) {
  shell.content.dataset.kind = kind;
  shell.content.replaceChildren(...nodes.filter(Boolean));
  shell.notebookId = undefined;
  shell.wordList = null;
}

function drawHome() {
  if (!state.notebooks) { setContent('loading', h('div', { class: 'skeleton', 'aria-hidden': 'true' }, h('div'), h('div'))); return; }
  setContent('home', h('div', { class: 'state' }, icon('book'),
    h('h1', { text: state.notebooks.length ? t('homeTitle') : t('homeTitleEmpty') }),
    h('p', { text: state.notebooks.length ? t('homeLead') : t('homeLeadEmpty') })));
}

function drawResults() {
  if (!state.words) {
    setContent('loading', h('p', { class: 'visually-hidden', text: t('loading') }),
      h('div', { class: 'skeleton', 'aria-hidden': 'true' }, h('div'), h('div')));
    return;
  }
  const known = new Set(visibleNotebooks().map((n) => n.id));
  const found = search(state.words.filter((w) => known.has(w.notebook)), state.text, state.tokens);
  const summary = found.length ? t('results', { n: found.length }) : t('resultsNone');
  const list = h('ul', { class: 'words results', id: 'results' }, found.map((w) => h('li', { class: 'word-card' },
    h('div', { class: 'word-text' }, h('h3', { class: 'word', text: w.word }),
      h('p', { class: 'explanation', text: w.explanation })),
    h('a', { class: 'badge', href: `#/n/${encodeURIComponent(w.notebook)}`,
      text: t('inNotebook', { name: notebookById(w.notebook).name }) }))));
  let region = document.getElementById('results-summary');
  if (shell.content.dataset.kind !== 'results' || !region) {
    region = h('p', { class: 'summary', id: 'results-summary', role: 'status', 'aria-live': 'polite' });
    setContent('results', h('h1', { class: 'visually-hidden', text: t('resultsTitle') }), region, list);
  } else {
    document.getElementById('results').replaceWith(list);
  }
  if (region.textContent !== summary) region.textContent = summary;
}

function drawNotebook(id) {
  if (!state.notebooks) { drawHome(); return; }
  const notebook = notebookById(id);
  if (!notebook) {
    setContent('missing', h('div', { class: 'state' }, h('h1', { text: t('errNotebookGone') }),
      h('a', { class: 'button', href: '#/', text: t('back') })));
    return;
  }
  if (shell.notebookId !== id || shell.content.dataset.kind !== 'notebook') buildNotebook(notebook);
  const heading = document.getElementById('notebook-title');
  if (heading && heading.textContent !== notebook.name) heading.textContent = notebook.name;
  drawWords(notebook);
}

function buildNotebook(notebook) {
  state.editing = null;
  state.renaming = false;
  const id = notebook.id;
  const header = h('div', { class: 'notebook-head', id: 'notebook-head' });
  const wordInput = h('input', { id: 'new-word', type: 'text', autocomplete: 'off', maxlength: 400 });
  const explanationInput = h('textarea', { id: 'new-explanation', rows: 2, maxlength: 4000 });
  const addError = h('p', { class: 'error', id: 'add-error', role: 'alert' });
  const addButton = h('button', { type: 'submit', class: 'button primary', id: 'add-word', text: t('add') });
  const addForm = h('form', {
    class: 'panel add-word', novalidate: true, 'aria-labelledby': 'add-heading',
    onsubmit: async (event) => {
      event.preventDefault();
      addError.textContent = '';
      const problem = wordProblem(wordInput.value, explanationInput.value);
      if (problem) { addError.textContent = wordProblemSentence(problem); wordInput.focus(); return; }
      addButton.disabled = true;
      try {
        const [typedWord, typedExplanation] = [wordInput.value, explanationInput.value];
        const word = trimSpace(typedWord);
        await addDoc(col('words'), {
          notebook: id, word, explanation: trimSpace(typedExplanation), createdAt: new Date().toISOString(),
        });
        // Only what was submitted is cleared: a word typed meanwhile stays.
        if (wordInput.value === typedWord && explanationInput.value === typedExplanation) {
          wordInput.value = '';
          explanationInput.value = '';
        }
        announce(t('wordAdded', { word }));
        wordInput.focus();
      } catch (error) {
        addError.textContent = errorSentence(error);
      } finally {
        addButton.disabled = false;
      }
    },
  },
  h('h2', { id: 'add-heading', text: t('addWord') }),
  h('div', { class: 'two' }, field('new-word', t('word'), wordInput), field('new-explanation', t('explanation'), explanationInput)),
  addError, h('div', { class: 'actions tight' }, addButton));
  const words = h('ul', { class: 'words', id: 'words', 'aria-labelledby': 'notebook-title' });
  setContent('notebook', h('a', { class: 'back', href: '#/', text: `← ${t('back')}` }), header, addForm,
    h('div', { id: 'words-body' }, words));
  shell.notebookId = id;
  shell.wordList = words;
  drawNotebookHead(notebook);
}

function drawNotebookHead(notebook) {
  const header = document.getElementById('notebook-head');
  if (!state.renaming) {
    header.replaceChildren(h('h1', { id: 'notebook-title', text: notebook.name }),
      h('div', { class: 'head-actions' },
        h('button', { type: 'button', class: 'button', id: 'rename', text: t('rename'), onclick: () => {
          state.renaming = true; drawNotebookHead(notebook); document.getElementById('rename-input').focus();
        } }),
        h('button', { type: 'button', class: 'button danger', id: 'delete-notebook', text: t('delete'),
          onclick: () => confirmDeleteNotebook(notebook) })));
    return;
  }
  const input = h('input', { id: 'rename-input', type: 'text', value: notebook.name, maxlength: 200, autocomplete: 'off' });
  const error = h('p', { class: 'error', id: 'rename-error', role: 'alert' });
  const cancel = () => { state.renaming = false; drawNotebookHead(notebookById(notebook.id) || notebook); document.getElementById('rename')?.focus(); };
  header.replaceChildren(h('form', {
    class: 'rename', novalidate: true,
    onsubmit: async (event) => {
      event.preventDefault();
      error.textContent = '';
      try {
        const name = await renameNotebook(notebook.id, input.value);
        state.renaming = false;
        announce(t('renamed', { name }));
        drawNotebookHead(notebookById(notebook.id) || { ...notebook, name });
        document.getElementById('rename')?.focus();
      } catch (failure) {
        error.textContent = failure.code === 'notes/blank' ? t('errBlankName')
          : failure.code === 'notes/too-long' ? t('errLongName') : errorSentence(failure);
        input.focus();
      }
    },
    onkeydown: (event) => { if (event.key === 'Escape') cancel(); },
  }, h('label', { for: 'rename-input', text: t('notebookName') }),
  h('div', { class: 'inline' }, input,
    h('button', { type: 'submit', class: 'button primary', id: 'rename-save', text: t('save') }),
    h('button', { type: 'button', class: 'button', text: t('cancel'), onclick: cancel })), error));
}

function wordProblemSentence(problem) {
  return { blankWord: t('errBlankWord'), wordTooLong: t('errLongWord'), explanationTooLong: t('errLongExplanation') }[problem];
}

const wordItems = new Map();   // word ID → its <li>, reused so an open editor survives live updates

function drawWords(notebook) {
  const body = document.getElementById('words-body');
  if (state.wordsError) { body.replaceChildren(h('p', { class: 'state small', text: t('wordsError') })); return; }
  if (!state.words) {
    body.replaceChildren(h('div', { class: 'skeleton', 'aria-hidden': 'true' }, h('div'), h('div')));
    return;
  }
  const words = wordsOf(notebook.id);
  if (!words.length) {
    body.replaceChildren(h('p', { class: 'empty', id: 'words-empty', text: t('wordsEmpty') }));
    return;
  }
  if (!body.contains(shell.wordList)) body.replaceChildren(shell.wordList);
  const items = words.map((word) => {
    const key = `${word.id}|${word.word}|${word.explanation}|${lang}`;
    let item = wordItems.get(word.id);
    if (state.editing === word.id && item) return item;
    if (!item || item.dataset.key !== key || item.dataset.mode !== 'view') item = wordView(word, key);
    wordItems.set(word.id, item);
    return item;
  });
  const list = shell.wordList;
  // Put them in order without detaching the one that has focus (its editor), so typing is not interrupted.
  items.forEach((item, index) => { if (list.children[index] !== item) list.insertBefore(item, list.children[index] || null); });
  while (list.children.length > items.length) list.lastElementChild.remove();
  if (state.editing && !words.some((w) => w.id === state.editing)) state.editing = null;
}

function wordView(word, key) {
  const item = h('li', { class: 'word-card', 'data-id': word.id, 'data-key': key, 'data-mode': 'view' },
    h('div', { class: 'word-text' }, h('h3', { class: 'word', text: word.word }),
      h('p', { class: 'explanation', text: word.explanation })),
    h('div', { class: 'row-actions' },
      h('button', { type: 'button', class: 'button small', 'aria-label': `${t('edit')}: ${word.word}`, text: t('edit'),
        'data-action': 'edit', onclick: () => editWord(word) }),
      h('button', { type: 'button', class: 'button small danger', 'aria-label': `${t('delete')}: ${word.word}`,
        text: t('delete'), 'data-action': 'delete', onclick: () => confirmDeleteWord(word) })));
  return item;
}

function editWord(word) {
  state.editing = word.id;
  const wordInput = h('input', { id: `edit-word-${word.id}`, type: 'text', value: word.word, maxlength: 400 });
  const explanation = h('textarea', { id: `edit-explanation-${word.id}`, rows: 3, maxlength: 4000 });
  explanation.value = word.explanation;
  const error = h('p', { class: 'error', role: 'alert' });
  const close = (focusWord) => {
    state.editing = null;
    const latest = (state.words || []).find((w) => w.id === word.id);
    wordItems.delete(word.id);
    refresh();
    if (latest && focusWord) wordItems.get(word.id)?.querySelector('[data-action="edit"]')?.focus();
  };
  const item = h('li', { class: 'word-card editing', 'data-id': word.id, 'data-mode': 'edit' }, h('form', {
    class: 'edit-form', novalidate: true,
    onsubmit: async (event) => {
      event.preventDefault();
      const problem = wordProblem(wordInput.value, explanation.value);
      if (problem) { error.textContent = wordProblemSentence(problem); wordInput.focus(); return; }
      try {
        const text = trimSpace(wordInput.value);
        await updateDoc(doc(col('words'), word.id), {
          word: text, explanation: trimSpace(explanation.value), updatedAt: new Date().toISOString(),
        });
        announce(t('wordSaved', { word: text }));
        close(true);
      } catch (failure) {
        error.textContent = errorSentence(failure);
      }
    },
    onkeydown: (event) => { if (event.key === 'Escape') close(true); },
  }, h('div', { class: 'two' }, field(wordInput.id, t('word'), wordInput), field(explanation.id, t('explanation'), explanation)),
  error, h('div', { class: 'actions tight' },
    h('button', { type: 'submit', class: 'button primary small', 'data-action': 'save', text: t('save') }),
    h('button', { type: 'button', class: 'button small', text: t('cancel'), onclick: () => close(true) }))));
  const old = wordItems.get(word.id);
  wordItems.set(word.id, item);
  if (old && old.isConnected) old.replaceWith(item);
  wordInput.focus();
}

async function confirmDeleteWord(word) {
  if (!(await confirmDialog(t('deleteWordTitle', { word: word.word }), t('deleteWordBody')))) return;
  try {
    await deleteDoc(doc(col('words'), word.id));
    announce(t('wordDeleted', { word: word.word }));
    document.getElementById('new-word')?.focus();
  } catch (error) {
    announce(errorSentence(error));
  }
}

async function confirmDeleteNotebook(notebook) {
  announce(t('counting'));
  let count;
  try {
    count = (await getCountFromServer(query(col('words'), where('notebook', '==', notebook.id)))).data().count;
  } catch (error) {
    announce(errorSentence(error));
    return;
  }
  const plan = deletePlan(count, COMMIT_LIMIT);
  const ok = await confirmDialog(t('deleteNotebookTitle', { name: notebook.name }),
    count ? t('deleteNotebookBody', { count }) : t('deleteNotebookBodyNone'),
    plan.atomic ? '' : t('deleteNotebookBig', { commits: plan.commits }));
  if (!ok) return;
  try {
    const deleted = await deleteNotebook(notebook);
    announce(t('deleted', { name: notebook.name, count: deleted }));
    location.hash = '#/';
    shell.input.focus();
  } catch (error) {
    announce(errorSentence(error));
  }
}

// ---------- writes ----------

/** Creates a notebook and takes its name in one commit (the name key's precondition: it does not exist). */
async function createNotebook(text) {
  const problem = nameProblem(text);
  if (problem) throw notesError(problem === 'blank' ? 'notes/blank' : 'notes/too-long');
  const name = trimSpace(text);
  const key = nameKey(name);
  const taken = visibleNotebooks().find((n) => n.nameKey === key);
  if (taken) throw notesError('notes/name-taken', { name: taken.name });
  const ref = doc(col('notebooks'));
  try {
    await runTransaction(db, async (transaction) => {
      const existing = await transaction.get(nameRef(key));
      if (existing.exists()) throw notesError('notes/name-taken', { name });
      transaction.set(nameRef(key), { notebook: ref.id });
      transaction.set(ref, { name, nameKey: key, createdAt: new Date().toISOString() });
    });
  } catch (error) {
    // Another tab took the name between our read and our commit: the rules judge the second create an update.
    if (error.code === 'permission-denied' && (await getDoc(nameRef(key)).catch(() => null))?.exists()) {
      throw notesError('notes/name-taken', { name });
    }
    throw error;
  }
  return { id: ref.id, name };
}

/** Renames a notebook; a new name key replaces the old one in the same commit. Returns the name. */
async function renameNotebook(id, text) {
  const problem = nameProblem(text);
  if (problem) throw notesError(problem === 'blank' ? 'notes/blank' : 'notes/too-long');
  const name = trimSpace(text);
  const key = nameKey(name);
  const other = visibleNotebooks().find((n) => n.nameKey === key && n.id !== id);
  if (other) throw notesError('notes/name-taken', { name: other.name });
  try {
    await runTransaction(db, async (transaction) => {
      const current = await transaction.get(notebookRef(id));
      if (!current.exists()) throw notesError('notes/notebook-gone');
      const oldKey = current.data().nameKey;
      if (oldKey !== key) {
        const existing = await transaction.get(nameRef(key));
        if (existing.exists()) throw notesError('notes/name-taken', { name });
        transaction.set(nameRef(key), { notebook: id });
        transaction.delete(nameRef(oldKey));
      }
      transaction.update(notebookRef(id), { name, nameKey: key, updatedAt: new Date().toISOString() });
    });
  } catch (error) {
    if (error.code === 'permission-denied' && (await getDoc(nameRef(key)).catch(() => null))?.exists()) {
      throw notesError('notes/name-taken', { name });
    }
    throw error;
  }
  return name;
}

/**
 * Deletes a notebook, its name key and its words: one atomic commit when they fit in one (up to 498 words); else
 * the words in commits of 500 first and the notebook with the last ones, so a delete that stops halfway leaves the
 * notebook with fewer words, and deleting it again finishes. Returns how many words went.
 */
async function deleteNotebook(notebook) {
  const snapshot = await getDocs(query(col('words'), where('notebook', '==', notebook.id)));
  const refs = snapshot.docs.map((d) => d.ref);
  let rest = refs;
  while (rest.length + 2 > COMMIT_LIMIT) {
    const batch = writeBatch(db);
    for (const ref of rest.slice(0, COMMIT_LIMIT)) batch.delete(ref);
    await batch.commit();
    rest = rest.slice(COMMIT_LIMIT);
  }
  const batch = writeBatch(db);
  for (const ref of rest) batch.delete(ref);
  batch.delete(notebookRef(notebook.id));
  batch.delete(nameRef(notebook.nameKey));
  await batch.commit();
  return refs.length;
}

// ---------- listeners and the session ----------

function stopListening() {
  for (const unsubscribe of unsubscribers) unsubscribe();
  unsubscribers = [];
  clearInterval(verifyTimer);
  verifyTimer = null;
}

function startApp() {
  stopListening();
  state.phase = 'app';
  state.notebooks = null;
  state.words = null;
  state.notebooksError = false;
  state.wordsError = false;
  wordItems.clear();
  shell = null;
  draw();
  focusHeading();
  const collator = new Intl.Collator(lang === 'ja' ? 'ja' : 'en', { sensitivity: 'base', numeric: true });
  unsubscribers.push(onSnapshot(col('notebooks'), (snapshot) => {
    state.notebooks = snapshot.docs.map((d) => ({ id: d.id, ...d.data() }))
      .sort((a, b) => collator.compare(a.name, b.name));
    state.notebooksError = false;
    if (state.phase === 'app') refresh();
  }, (error) => listenerFailed(error, 'notebooksError')));
  unsubscribers.push(onSnapshot(col('words'), (snapshot) => {
    state.words = snapshot.docs.map((d) => ({ id: d.id, ...d.data() }))
      .sort((a, b) => collator.compare(a.word, b.word) || String(a.createdAt).localeCompare(String(b.createdAt)));
    state.wordsError = false;
    if (state.phase === 'app') refresh();
  }, (error) => listenerFailed(error, 'wordsError')));
}

function listenerFailed(error, flag) {
  // A session that ended (revoked elsewhere, account disabled) signs out: onAuthStateChanged takes it from here.
  if (error.code === 'unauthenticated') return;
  state[flag] = true;
  if (state.phase === 'app') refresh();
}

onAuthStateChanged(auth, (user) => {
  const previous = state.user;
  state.user = user;
  drawHeader();
  if (!user) {
    stopListening();
    if (previous && !state.signingOut) state.notice = t('sessionEnded');
    state.signingOut = false;
    state.phase = 'signedOut';
    state.authMode = 'signin';
    state.tokens = [];
    state.text = '';
    shell = null;
    draw();
    if (previous) focusHeading();
    return;
  }
  if (previous && previous.uid === user.uid && state.phase !== 'signedOut') return;
  if (user.emailVerified) {
    startApp();
    return;
  }
  stopListening();
  state.phase = 'unverified';
  draw();
  focusHeading();
  // Verified in another window, or the session revoked there: either shows here within seconds. A session
  // restored from before may hold a stale profile, so the first check is at once.
  checkVerified();
  verifyTimer = setInterval(() => { if (state.phase === 'unverified') checkVerified(); }, 4000);
});

window.addEventListener('hashchange', () => {
  if (state.phase !== 'app') return;
  const createError = document.getElementById('create-error');
  if (createError) createError.textContent = '';
  document.getElementById('new-notebook')?.removeAttribute('aria-invalid');
  const id = routeNotebook();
  if (id && (trimSpace(state.text) || state.tokens.length)) {
    // Opening a notebook from the results ends the search.
    state.text = '';
    state.tokens = [];
    shell.input.value = '';
  }
  refresh();
  focusHeading();
});

drawHeader();
draw();

// For the browser suite and the curious: the app's state and its logic.
window.notesApp = {
  get user() { return state.user && state.user.uid; },
  get phase() { return state.phase; },
  get notebooks() { return state.notebooks; },
  normalize,
};
