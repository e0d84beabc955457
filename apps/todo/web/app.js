// To-do (seed 003): sign up and in, a password-reset mail, the list observed live, add, mark done, delete by
// swipe or button, sign out; offline with kura.js persistence. Plain ES module on /sdk/kura.js. The list lives at
// users/{uid}/todos/{id} {title, done, createdAt}, the layout kura-todo uses, so both show the same list.
import {
  initializeApp, getAuth, getDatabase, onAuthStateChanged, signInWithEmailAndPassword,
  createUserWithEmailAndPassword, sendPasswordResetEmail, signOut, collection, doc, addDoc, updateDoc, deleteDoc,
  query, orderBy, onSnapshot, onWriteError, serverTimestamp,
} from '/sdk/kura.js';
import { initialLanguage, translator, errorKey } from './strings.js';
import { cleanTitle, countTodos } from './logic.js';

const app = initializeApp({ persistence: 'indexeddb' });
const auth = getAuth(app);
const db = getDatabase(app);

const main = document.getElementById('main');
const status = document.getElementById('status');
const who = document.getElementById('who');
const signOutButton = document.getElementById('sign-out');
const langSwitch = document.getElementById('lang-switch');

let lang = initialLanguage(localStorage, navigator.languages || [navigator.language]);
let t = translator(lang);
let user = undefined;        // undefined until the first auth state, then a User or null
let screen = 'signIn';       // signed out: 'signIn' | 'signUp' | 'reset'
let unsubscribe = null;      // the list listener
let list = { state: 'loading', todos: [], offline: false, error: null };
let draft = '';              // what is typed in the add field, kept across redraws

// ---------- helpers ----------

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
  // A fresh text each time, so screen readers announce a repeated message too.
  setTimeout(() => { status.textContent = message; }, 30);
  clearTimeout(announce.timer);
  announce.timer = setTimeout(() => { status.textContent = ''; }, 5000);
}

function applyLanguage() {
  t = translator(lang);
  document.documentElement.lang = lang;
  document.title = t('appName');
  for (const element of document.querySelectorAll('[data-text]')) element.textContent = t(element.dataset.text);
  langSwitch.textContent = t('switchLanguage');
  langSwitch.lang = lang === 'ja' ? 'en' : 'ja';
  langSwitch.setAttribute('aria-label', t('switchLanguageLabel'));
  updateBar();
}

function updateBar() {
  const signedIn = !!user;
  who.hidden = !signedIn;
  signOutButton.hidden = !signedIn;
  if (signedIn) {
    who.textContent = user.email;
    who.title = t('signedInAs', { email: user.email });
  }
}

/** Replaces the page's content; `focus` moves focus to its heading (after a change of screen). */
function show(nodes, { focus = false } = {}) {
  const active = document.activeElement;
  const keep = active && active.id && main.contains(active) ? { id: active.id, start: active.selectionStart } : null;
  main.replaceChildren(...nodes.filter(Boolean));
  main.removeAttribute('aria-busy');
  if (focus) {
    const heading = main.querySelector('h1');
    if (heading) { heading.tabIndex = -1; heading.focus(); }
  } else if (keep) {
    // A live update redrew the list: focus stays where the person was.
    const again = document.getElementById(keep.id);
    if (again) {
      again.focus();
      if (keep.start != null && typeof again.setSelectionRange === 'function') {
        try { again.setSelectionRange(keep.start, keep.start); } catch { /* not a text field */ }
      }
    }
  }
}

function passwordField(id, autocomplete, describedBy) {
  const input = h('input', {
    id, type: 'password', name: 'password', required: true, minlength: 6, autocomplete,
    'aria-describedby': describedBy,
  });
  const toggle = h('button', {
    type: 'button', class: 'reveal', 'aria-controls': id, 'aria-pressed': 'false',
    'aria-label': t('showPasswordLabel'), text: t('showPassword'),
    onclick: () => {
      const shown = input.type === 'password';
      input.type = shown ? 'text' : 'password';
      toggle.setAttribute('aria-pressed', String(shown));
      toggle.textContent = shown ? t('hidePassword') : t('showPassword');
    },
  });
  return h('div', { class: 'password' }, input, toggle);
}

// ---------- signed out: sign in, sign up, reset ----------

function drawSignedOut(focus) {
  if (screen === 'reset') return drawReset(focus);
  const signUp = screen === 'signUp';
  const alert = h('p', { class: 'alert', id: 'auth-error', role: 'alert', hidden: true });
  const email = h('input', { id: 'email', type: 'email', name: 'email', required: true, autocomplete: 'email' });
  const submit = h('button', { type: 'submit', class: 'button primary', text: t(signUp ? 'signUpButton' : 'signInButton') });
  const form = h('form', { class: 'stack', novalidate: true, 'aria-describedby': 'auth-error',
    onsubmit: async (event) => {
      event.preventDefault();
      alert.hidden = true;
      const password = form.querySelector('#password').value;
      submit.disabled = true;
      submit.textContent = t('working');
      try {
        if (signUp) {
          await createUserWithEmailAndPassword(auth, email.value.trim(), password);
          announce(t('welcome'));
        } else {
          await signInWithEmailAndPassword(auth, email.value.trim(), password);
        }
      } catch (error) {
        alert.textContent = t(errorKey(error));
        alert.hidden = false;
        submit.disabled = false;
        submit.textContent = t(signUp ? 'signUpButton' : 'signInButton');
        (error.code === 'auth/invalid-email' || error.code === 'auth/email-already-in-use' ? email
          : form.querySelector('#password')).focus();
      }
    } },
    alert,
    h('div', { class: 'field' }, h('label', { for: 'email', text: t('email') }), email),
    h('div', { class: 'field' },
      h('label', { for: 'password', text: t('password') }),
      signUp ? h('p', { class: 'hint', id: 'password-rule', text: t('passwordRule') }) : null,
      passwordField('password', signUp ? 'new-password' : 'current-password', signUp ? 'password-rule' : null)),
    submit,
    signUp ? null : h('button', { type: 'button', class: 'link', text: t('forgot'),
      onclick: () => { screen = 'reset'; resetEmail = email.value; draw(true); } }));
  const tab = (name, key) => h('button', {
    type: 'button', class: 'tab', 'aria-pressed': String(screen === name), text: t(key),
    onclick: () => { if (screen !== name) { screen = name; draw(true); document.getElementById('email')?.focus(); } },
  });
  show([
    h('section', { class: 'panel auth', 'aria-labelledby': 'auth-title' },
      h('h1', { id: 'auth-title', text: t(signUp ? 'signUpTitle' : 'signInTitle') }),
      h('p', { class: 'lead', text: t('signInLead') }),
      h('div', { class: 'tabs', role: 'group', 'aria-label': t('signInTitle') }, tab('signIn', 'signInTab'), tab('signUp', 'signUpTab')),
      form),
  ], { focus });
}

let resetEmail = '';
function drawReset(focus) {
  const alert = h('p', { class: 'alert', role: 'alert', hidden: true });
  const done = h('p', { class: 'notice', role: 'status', hidden: true });
  const email = h('input', { id: 'reset-email', type: 'email', required: true, autocomplete: 'email', value: resetEmail });
  const submit = h('button', { type: 'submit', class: 'button primary', text: t('resetButton') });
  const form = h('form', { class: 'stack', novalidate: true,
    onsubmit: async (event) => {
      event.preventDefault();
      alert.hidden = true;
      submit.disabled = true;
      try {
        // The action page leads back here once the password is changed.
        const back = new URL(location.href);
        back.hash = '';
        try {
          await sendPasswordResetEmail(auth, email.value.trim(), { url: back.href });
        } catch (error) {
          // Served from an origin the server does not list (say, localhost for 127.0.0.1): the mail still goes,
          // without the way back.
          if (!/continue-uri/.test(error.code ?? '')) throw error;
          await sendPasswordResetEmail(auth, email.value.trim());
        }
        done.textContent = t('resetSent', { email: email.value.trim() });
        done.hidden = false;
      } catch (error) {
        alert.textContent = t(errorKey(error));
        alert.hidden = false;
        email.focus();
      } finally {
        submit.disabled = false;
      }
    } },
    alert, done,
    h('div', { class: 'field' }, h('label', { for: 'reset-email', text: t('email') }), email),
    submit,
    h('button', { type: 'button', class: 'link', text: t('backToSignIn'),
      onclick: () => { screen = 'signIn'; draw(true); } }));
  show([
    h('section', { class: 'panel auth', 'aria-labelledby': 'reset-title' },
      h('h1', { id: 'reset-title', text: t('resetTitle') }),
      h('p', { class: 'lead', text: t('resetLead') }),
      form),
  ], { focus });
}

// ---------- signed in: the list ----------

function todosOf(uid) { return collection(db, 'users', uid, 'todos'); }

function listen(uid) {
  unsubscribe?.();
  list = { state: 'loading', todos: [], offline: false, error: null };
  unsubscribe = onSnapshot(query(todosOf(uid), orderBy('createdAt')), { includeMetadataChanges: true },
    (snapshot) => {
      list = {
        state: 'ready',
        offline: snapshot.metadata.fromCache,
        todos: snapshot.docs.map((d) => ({ id: d.id, ...d.data(), pending: d.metadata.hasPendingWrites })),
        error: null,
      };
      draw(false);
    },
    (error) => {
      list = { ...list, state: list.todos.length ? 'ready' : 'error', error };
      draw(false);
    });
}

async function add(text) {
  const cleaned = cleanTitle(text);
  if (cleaned.error) return { error: cleaned.error === 'blank' ? 'blankTitle' : 'tooLong' };
  // Offline, addDoc resolves once the write is queued; the listener shows it at once either way.
  const writing = addDoc(todosOf(user.uid), { title: cleaned.title, done: false, createdAt: serverTimestamp() });
  draft = '';
  const offline = list.offline;
  writing.then(() => announce(t(offline ? 'addedOffline' : 'added', { title: cleaned.title })),
    (error) => announce(t(errorKey(error))));
  return {};
}

function setDone(todo, done) {
  updateDoc(doc(todosOf(user.uid), todo.id), { done })
    .then(() => announce(t(done ? 'doneSaid' : 'openSaid', { title: todo.title })),
      (error) => announce(t(errorKey(error))));
}

function remove(todo) {
  deleteDoc(doc(todosOf(user.uid), todo.id))
    .then(() => announce(t('deleted', { title: todo.title })), (error) => announce(t(errorKey(error))));
}

/** Swipe to the left past a third of the row's width deletes it (touch and pen; a mouse uses the button). */
function swipeable(row, todo) {
  let start = null;
  row.addEventListener('pointerdown', (event) => {
    if (event.pointerType === 'mouse' || event.target.closest('button, input')) return;
    start = { x: event.clientX, y: event.clientY, id: event.pointerId, dx: 0, locked: false };
  });
  row.addEventListener('pointermove', (event) => {
    if (!start || event.pointerId !== start.id) return;
    const dx = event.clientX - start.x, dy = event.clientY - start.y;
    if (!start.locked) {
      if (Math.abs(dy) > 10 && Math.abs(dy) > Math.abs(dx)) { start = null; return; }   // a scroll
      if (Math.abs(dx) < 10) return;
      start.locked = true;
      row.setPointerCapture(event.pointerId);
      row.classList.add('swiping');
    }
    start.dx = Math.min(0, dx);
    row.querySelector('.row').style.transform = `translateX(${start.dx}px)`;
  });
  const end = (event) => {
    if (!start || event.pointerId !== start.id) return;
    const far = start.locked && -start.dx > row.offsetWidth / 3;
    row.classList.remove('swiping');
    if (start.locked) {
      // The click that ends a swipe must not toggle the to-do through its label.
      row.addEventListener('click', (click) => { click.preventDefault(); click.stopPropagation(); },
        { capture: true, once: true });
    }
    const inner = row.querySelector('.row');
    if (far) {
      inner.style.transform = 'translateX(-100%)';
      row.classList.add('leaving');
      remove(todo);
    } else {
      inner.style.transform = '';
    }
    start = null;
  };
  row.addEventListener('pointerup', end);
  row.addEventListener('pointercancel', end);
}

function todoItem(todo) {
  const checkId = `done-${todo.id}`;
  const row = h('li', { class: 'todo', 'data-id': todo.id },
    h('div', { class: 'swipe-bg', 'aria-hidden': 'true', text: t('delete') }),
    h('div', { class: 'row' },
      h('input', { type: 'checkbox', id: checkId, class: 'check', onchange: (event) => setDone(todo, event.target.checked) }),
      h('label', { for: checkId, class: 'title' }, todo.title),
      h('button', { type: 'button', class: 'delete', id: `delete-${todo.id}`,
        'aria-label': t('deleteLabel', { title: todo.title }), title: t('deleteLabel', { title: todo.title }),
        onclick: () => remove(todo) },
        h('span', { 'aria-hidden': 'true', class: 'delete-icon', text: '×' }), h('span', { class: 'delete-text', text: t('delete') }))));
  swipeable(row, todo);
  updateItem(row, todo);
  return row;
}

/** What a to-do's row shows that can change while it stays the same to-do: done or open, sent or not yet. */
function updateItem(row, todo) {
  const done = todo.done === true;
  row.classList.toggle('is-done', done);
  const check = row.querySelector('.check');
  check.checked = done;
  check.setAttribute('aria-label', t(done ? 'markOpen' : 'markDone', { title: todo.title }));
  const chip = row.querySelector('.pending');
  if (todo.pending && !chip) row.querySelector('.delete').before(h('span', { class: 'pending', text: t('pending') }));
  if (!todo.pending && chip) chip.remove();
}

/**
 * The list screen. The heading and the add form are built once per sign-in and kept, so that live updates never
 * disturb typing (an IME composition, the caret); each update redraws only the banner and the items.
 */
let listScreen = null;
function drawList(focus) {
  if (!listScreen || !main.contains(listScreen.section) || listScreen.lang !== lang) {
    listScreen = buildListScreen();
    show([listScreen.section], { focus });
    if (focus) listScreen.field.focus();
  }
  const { banner, body } = listScreen;
  banner.hidden = !list.offline;
  // Focus on an item's control survives the redraw (the same control of the same to-do).
  const active = document.activeElement;
  const keep = active && body.contains(active) ? active.id : null;
  const content = listBody();
  if (body.firstChild !== content) body.replaceChildren(content);
  if (keep) (document.getElementById(keep) ?? listScreen.field).focus();
  main.removeAttribute('aria-busy');
}

function buildListScreen() {
  const field = h('input', { id: 'new-todo', type: 'text', maxlength: 500, autocomplete: 'off', enterkeyhint: 'done',
    placeholder: t('addPlaceholder'), 'aria-describedby': 'add-error', value: draft,
    oninput: (event) => { draft = event.target.value; addError.textContent = ''; } });
  const addError = h('p', { class: 'field-error', id: 'add-error', role: 'alert' });
  const form = h('form', { class: 'add', novalidate: true,
    onsubmit: async (event) => {
      event.preventDefault();
      const result = await add(field.value);
      if (result.error) { addError.textContent = t(result.error); field.focus(); return; }
      addError.textContent = '';
      field.value = '';
      field.focus();
    } },
    h('label', { for: 'new-todo', class: 'visually-hidden', text: t('addLabel') }),
    field,
    h('button', { type: 'submit', class: 'button primary', text: t('addButton') }));
  const banner = h('p', { class: 'offline', role: 'status', text: t('offline'), hidden: true });
  const body = h('div', { class: 'list-body' });
  const section = h('section', { class: 'panel list', 'aria-labelledby': 'list-title' },
    h('h1', { id: 'list-title', text: t('listTitle') }), banner, form, addError, body);
  return { section, field, banner, body, lang };
}

function listBody() {
  if (list.state === 'loading') {
    return h('div', { class: 'state', 'aria-busy': 'true' },
      h('span', { class: 'spinner', 'aria-hidden': 'true' }), h('p', { text: t('loading') }));
  }
  if (list.state === 'error') {
    return h('div', { class: 'state problem' },
      h('p', { text: t('listError') }),
      h('button', { type: 'button', class: 'button', text: t('retry'), onclick: () => listen(user.uid) }));
  }
  if (list.todos.length === 0) {
    return h('div', { class: 'state empty' },
      emptyIllustration(), h('h2', { text: t('emptyTitle') }), h('p', { text: t('emptyLead') }));
  }
  return itemsView();
}

/**
 * The items, kept from one update to the next: a to-do's row is the same element for as long as its title is the
 * same, updated in place (`updateItem`), and rows are moved only when the order changed. So an update from another
 * tab or the server's answer never takes away a row under the pointer, a swipe in progress or the focus.
 */
function itemsView() {
  const view = listScreen.items ??= (() => {
    const count = h('p', { class: 'count', id: 'count' });
    const rowsList = h('ul', { class: 'todos', 'aria-labelledby': 'list-title', 'aria-describedby': 'count' });
    const element = h('div', {}, count, rowsList, h('p', { class: 'swipe-hint', text: t('swipeHint') }));
    return { element, count, list: rowsList, rows: new Map() };
  })();
  const { open, done } = countTodos(list.todos);
  view.count.textContent = open === 0 ? t('countNone') : t('countSome', { open, done });
  const rows = new Map();
  list.todos.forEach((todo, position) => {
    const kept = view.rows.get(todo.id);
    let row;
    if (kept?.title === todo.title) {
      row = kept.row;
      updateItem(row, todo);
    } else {
      row = todoItem(todo);
    }
    rows.set(todo.id, { title: todo.title, row });
    const there = view.list.children[position];
    if (there !== row) view.list.insertBefore(row, there ?? null);
  });
  while (view.list.children.length > list.todos.length) view.list.lastElementChild.remove();
  view.rows = rows;
  return view.element;
}

function emptyIllustration() {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 64 64');
  svg.setAttribute('class', 'empty-art');
  svg.setAttribute('aria-hidden', 'true');
  svg.innerHTML = '<rect x="12" y="8" width="40" height="48" rx="6" fill="none" stroke="currentColor" stroke-width="3"/>'
    + '<path d="M21 24h22M21 34h22M21 44h12" stroke="currentColor" stroke-width="3" stroke-linecap="round"/>';
  return svg;
}

// ---------- wiring ----------

function draw(focus) {
  updateBar();
  if (user === undefined) return;
  if (user) drawList(focus);
  else drawSignedOut(focus);
}

langSwitch.addEventListener('click', () => {
  lang = lang === 'ja' ? 'en' : 'ja';
  localStorage.setItem('todo.lang', lang);
  applyLanguage();
  draw(false);
});

signOutButton.addEventListener('click', async () => {
  try {
    await signOut(auth);
    announce(t('signedOut'));
  } catch (error) {
    announce(t(errorKey(error)));
  }
});

onWriteError(db, () => announce(t('errWriteRefused')));

onAuthStateChanged(auth, (next) => {
  const changed = (next?.uid ?? null) !== (user?.uid ?? null) || user === undefined;
  user = next;
  if (!changed) return draw(false);
  unsubscribe?.();
  unsubscribe = null;
  listScreen = null;
  draft = '';
  if (user) listen(user.uid);
  else screen = screen === 'reset' ? 'reset' : 'signIn';
  draw(true);
});

applyLanguage();
