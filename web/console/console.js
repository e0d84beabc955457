// The console's shell: sign-in (nothing else is shown before it), the section navigation, the confirm dialog and
// the notice line every section reports through. Sections are modules that render into <main>.
import { call, forgetKey, setCredential, storedKey, storeKey, sentence, ApiError } from './api.js';
import { language, setLanguage, t } from './i18n.js';

export const main = document.getElementById('main');

/** Builds an element: `h('button', {class: 'x', onclick}, 'text', child…)`. */
export function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** Shows a one-line notice: `kind` is 'ok' or 'error'. */
export function notify(message, kind = 'ok') {
  const notice = document.getElementById('notice');
  notice.textContent = message;
  notice.className = `notice show ${kind}`;
  clearTimeout(notify.timer);
  notify.timer = setTimeout(() => { notice.className = 'notice'; }, kind === 'error' ? 12000 : 4000);
}

/** Reports an error as a sentence with its code. */
export function fail(error) { notify(sentence(error), 'error'); }

/** Asks before a destructive action; resolves true when confirmed. `body` may be a node. */
export function confirmAction(title, body, okLabel = t('confirm')) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-title').textContent = title;
  const holder = document.getElementById('confirm-body');
  holder.replaceChildren(body instanceof Node ? body : h('p', {}, body ?? t('confirmDelete')));
  document.getElementById('confirm-ok').textContent = okLabel;
  document.getElementById('confirm-cancel').textContent = t('cancel');
  dialog.returnValue = '';
  dialog.showModal();
  document.getElementById('confirm-cancel').focus();
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
  });
}

const sections = [
  ['users', () => import('./users.js')],
  ['data', () => import('./data.js')],
  ['rules', () => import('./rules.js')],
  ['indexes', () => import('./more.js')],
  ['mail', () => import('./more.js')],
  ['server', () => import('./more.js')],
];

let signedIn = false;
let closeSection = null;

function translateStatic() {
  document.title = t('title');
  for (const node of document.querySelectorAll('[data-t]')) node.textContent = t(node.dataset.t);
  document.getElementById('lang').textContent = language() === 'ja' ? 'English' : '日本語';
}

function renderNav(current) {
  const nav = document.getElementById('nav');
  nav.replaceChildren(...sections.map(([name]) =>
    h('a', { href: `#${name}`, 'aria-current': name === current ? 'page' : null }, t(name))));
  nav.hidden = false;
  document.getElementById('signout').hidden = false;
}

async function route() {
  if (!signedIn) return;
  const hash = location.hash.slice(1);
  const [name, ...rest] = hash.split('/');
  const entry = sections.find(([n]) => n === name) ?? sections[0];
  renderNav(entry[0]);
  document.getElementById('notice').className = 'notice'; // a notice belongs to the section that made it
  closeSection?.();
  closeSection = null;
  main.replaceChildren(h('p', { class: 'lead' }, t('loading')));
  try {
    const module = await entry[1]();
    closeSection = (await module.render(entry[0], rest.map(decodeURIComponent).join('/'))) ?? null;
  } catch (error) {
    main.replaceChildren(h('p', { class: 'error-text', role: 'alert' }, sentence(error)));
  }
}

/** Checks the credential against an admin endpoint; a refusal signs out again. */
async function enter(credential) {
  setCredential(credential);
  await call('GET', '/api/admin/status');
  signedIn = true;
  route();
}

function signInForm(message) {
  signedIn = false;
  document.getElementById('nav').hidden = true;
  document.getElementById('signout').hidden = true;
  const keyInput = h('input', { id: 'key', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false' });
  const remember = h('input', { id: 'remember', type: 'checkbox' });
  const error = h('p', { class: 'error-text', role: 'alert', id: 'signin-error' }, message ?? '');
  const keyForm = h('form', { class: 'panel stack', id: 'key-form', onsubmit: async (event) => {
    event.preventDefault();
    error.textContent = '';
    const key = keyInput.value.trim();
    try {
      await enter({ kind: 'key', key });
      storeKey(key, remember.checked);
    } catch (e) {
      setCredential(null);
      error.textContent = sentence(e);
    }
  } },
  h('h2', {}, t('adminKey')),
  h('label', { for: 'key' }, t('adminKey')), keyInput, h('p', { class: 'hint' }, t('keyHelp')),
  h('label', { class: 'check' }, remember, ' ', t('remember')),
  h('button', { class: 'button', type: 'submit' }, t('signIn')));
  const email = h('input', { id: 'email', type: 'email', autocomplete: 'username', required: true });
  const password = h('input', { id: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const rememberUser = h('input', { id: 'remember-user', type: 'checkbox' });
  const accountForm = h('form', { class: 'panel stack', id: 'account-form', onsubmit: async (event) => {
    event.preventDefault();
    error.textContent = '';
    try {
      const sdk = await import('/sdk/kura.js');
      const app = sdk.getApps()[0] ?? sdk.initializeApp({ url: location.origin }, );
      const auth = sdk.getAuth(app);
      await sdk.setPersistence(auth, rememberUser.checked ? sdk.browserLocalPersistence : sdk.browserSessionPersistence);
      const { user } = await sdk.signInWithEmailAndPassword(auth, email.value, password.value);
      try {
        await enter({ kind: 'user', user, auth });
      } catch (e) {
        await sdk.signOut(auth);
        throw e instanceof ApiError && e.code === 'PERMISSION_DENIED'
          ? new ApiError(403, 'PERMISSION_DENIED', t('notAdmin')) : e;
      }
    } catch (e) {
      setCredential(null);
      error.textContent = sentence(e);
    }
  } },
  h('h2', {}, t('account')),
  h('label', { for: 'email' }, t('email')), email,
  h('label', { for: 'password' }, t('password')), password,
  h('label', { class: 'check' }, rememberUser, ' ', t('remember')),
  h('button', { class: 'button', type: 'submit' }, t('signIn')));
  main.replaceChildren(h('section', { class: 'signin' },
    h('h1', {}, t('signIn')), h('p', { class: 'lead' }, t('signInLead')), error,
    h('div', { class: 'grid two' }, keyForm, accountForm)));
  keyInput.focus();
}

async function signOutEverywhere() {
  forgetKey();
  setCredential(null);
  closeSection?.();
  closeSection = null;
  try {
    const sdk = await import('/sdk/kura.js');
    for (const app of sdk.getApps()) await sdk.signOut(sdk.getAuth(app));
  } catch { /* nothing signed in */ }
  history.replaceState(null, '', location.pathname);
  signInForm();
}

async function start() {
  setLanguage(language());
  translateStatic();
  document.getElementById('lang').addEventListener('click', () => {
    setLanguage(language() === 'ja' ? 'en' : 'ja');
    translateStatic();
    if (signedIn) route(); else signInForm();
  });
  document.getElementById('signout').addEventListener('click', signOutEverywhere);
  window.addEventListener('hashchange', route);
  const key = storedKey();
  if (key) {
    try { await enter({ kind: 'key', key }); return; } catch { forgetKey(); setCredential(null); }
  }
  signInForm();
}

start();
