// Users: find by email, page through, create; per user: disable/enable, mark verified, mails, claims, revoke
// sessions, delete. Admin API: /api/admin/users…; the mails go through the public endpoints any client uses.
import { call, get, sentence } from './api.js';
import { confirmAction, fail, h, main, notify } from './console.js';
import { t } from './i18n.js';

const PAGE = 25;

function when(text) {
  if (!text) return '—';
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toLocaleString();
}

function badge(on, label) {
  return h('span', { class: `badge ${on ? 'on' : 'off'}` }, label);
}

export async function render() {
  const tokens = [null]; // page tokens of the pages seen, for Back
  let page = 0;
  let email = '';
  const list = h('div', { class: 'list', id: 'user-list' });
  const detail = h('div', { class: 'detail', id: 'user-detail' });
  const pager = h('div', { class: 'row' });
  const search = h('input', { id: 'user-search', type: 'search', placeholder: 'ann@ / ann@example.com', autocomplete: 'off' });

  async function load() {
    list.replaceChildren(h('p', { class: 'lead' }, t('loading')));
    try {
      const query = `${email ? `emailPrefix=${encodeURIComponent(email)}&` : ''}pageSize=${PAGE}`
        + (tokens[page] ? `&pageToken=${encodeURIComponent(tokens[page])}` : '');
      const answer = await get(`/api/admin/users?${query}`);
      tokens[page + 1] = answer.nextPageToken ?? null;
      showList(answer.users ?? []);
      pager.replaceChildren(...[
        page > 0 ? h('button', { class: 'button ghost', type: 'button', onclick: () => { page = 0; load(); } }, t('first')) : null,
        answer.nextPageToken ? h('button', { class: 'button ghost', type: 'button', id: 'users-next', onclick: () => { page += 1; load(); } }, t('next')) : null].filter(Boolean));
    } catch (error) {
      list.replaceChildren(h('p', { class: 'error-text', role: 'alert' }, sentence(error)));
    }
  }

  function showList(users) {
    if (!users.length) { list.replaceChildren(h('p', { class: 'empty' }, t('noUsers'))); return; }
    list.replaceChildren(h('table', { class: 'table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('email')), h('th', { scope: 'col' }, t('status')),
        h('th', { scope: 'col', class: 'wide' }, t('claims')), h('th', { scope: 'col', class: 'wide' }, t('created')))),
      h('tbody', {}, users.map((user) => h('tr', {},
        h('td', {}, h('button', { class: 'linkish', type: 'button', dataset: { uid: user.uid }, onclick: () => showUser(user) },
          user.email ?? user.uid)),
        h('td', {}, badge(user.emailVerified, user.emailVerified ? t('verified') : t('unverified')), ' ',
          user.disabled ? badge(false, t('disabled')) : null),
        h('td', { class: 'wide mono' }, Object.keys(user.customClaims ?? {}).length ? JSON.stringify(user.customClaims) : '—'),
        h('td', { class: 'wide' }, when(user.createTime)))))));
  }

  async function act(label, work) {
    try {
      const user = await work();
      notify(`${label}: ${t('done')}`);
      await load();
      if (user) showUser(user);
    } catch (error) { fail(error); }
  }

  function showUser(user) {
    const path = `/api/admin/users/${encodeURIComponent(user.uid)}`;
    const patch = async (body) => (await call('PATCH', path, { body })).json.user;
    const claims = h('textarea', { id: 'claims', rows: 4, class: 'mono', spellcheck: 'false' },
      JSON.stringify(user.customClaims ?? {}, null, 2));
    const claimsError = h('p', { class: 'error-text', role: 'alert' });
    detail.replaceChildren(h('section', { class: 'panel stack', 'aria-labelledby': 'user-title' },
      h('div', { class: 'row between' }, h('h2', { id: 'user-title' }, user.email ?? user.uid),
        h('button', { class: 'button ghost', type: 'button', onclick: () => detail.replaceChildren() }, t('close'))),
      h('dl', { class: 'facts' },
        h('dt', {}, t('uid')), h('dd', { class: 'mono' }, user.uid),
        h('dt', {}, t('verified')), h('dd', { id: 'detail-verified' }, user.emailVerified ? t('yes') : t('no')),
        h('dt', {}, t('disabled')), h('dd', { id: 'detail-disabled' }, user.disabled ? t('yes') : t('no')),
        h('dt', {}, t('created')), h('dd', {}, when(user.createTime)),
        h('dt', {}, t('lastSignIn')), h('dd', { id: 'detail-last-sign-in' }, when(user.lastSignInTime))),
      h('div', { class: 'row wrap' },
        h('button', { class: 'button', type: 'button', id: 'toggle-disabled', onclick: async () => {
          if (!user.disabled && !(await confirmAction(t('disable'), `${user.email}: ${t('disable')}?`))) return;
          act(user.disabled ? t('enable') : t('disable'), () => patch({ disabled: !user.disabled }));
        } }, user.disabled ? t('enable') : t('disable')),
        user.emailVerified ? null : h('button', { class: 'button ghost', type: 'button', onclick: () =>
          act(t('markVerified'), () => patch({ emailVerified: true })) }, t('markVerified')),
        user.email ? h('button', { class: 'button ghost', type: 'button', onclick: () => act(t('sendReset'), async () => {
          await call('POST', '/api/auth/password-reset', { body: { email: user.email } });
        }) }, t('sendReset')) : null,
        user.email && !user.emailVerified ? h('button', { class: 'button ghost', type: 'button', onclick: () =>
          act(t('sendVerify'), async () => { await call('POST', '/api/auth/verify-email', { body: { email: user.email } }); }) },
          t('sendVerify')) : null,
        h('button', { class: 'button ghost', type: 'button', onclick: async () => {
          if (!(await confirmAction(t('revoke'), `${user.email ?? user.uid}: ${t('revoke')}?`))) return;
          act(t('revoke'), async () => { await call('POST', `${path}/revoke`); });
        } }, t('revoke')),
        h('button', { class: 'button danger', type: 'button', id: 'delete-user', onclick: async () => {
          if (!(await confirmAction(`${t('delete')}: ${user.email ?? user.uid}`, t('confirmDelete'), t('delete')))) return;
          try {
            await call('DELETE', path);
            detail.replaceChildren();
            notify(`${t('delete')}: ${t('done')}`);
            load();
          } catch (error) { fail(error); }
        } }, t('delete'))),
      h('form', { class: 'stack', onsubmit: (event) => {
        event.preventDefault();
        let value;
        try {
          value = JSON.parse(claims.value);
          if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('claims are a JSON object, such as {"admin": true}');
        } catch (error) {
          claimsError.textContent = `${error.message} (INVALID_CLAIMS)`;
          return;
        }
        claimsError.textContent = '';
        act(t('saveClaims'), () => patch({ customClaims: value }));
      } },
      h('label', { for: 'claims' }, t('claims')), claims, claimsError,
      h('button', { class: 'button ghost', type: 'submit' }, t('saveClaims')))));
    detail.querySelector('h2').focus?.();
  }

  const newEmail = h('input', { id: 'new-email', type: 'email', required: true, autocomplete: 'off' });
  const newPassword = h('input', { id: 'new-password', type: 'password', required: true, minlength: 6, autocomplete: 'new-password' });
  const newVerified = h('input', { id: 'new-verified', type: 'checkbox' });
  const create = h('details', { class: 'panel' }, h('summary', {}, t('newUser')),
    h('form', { class: 'stack', id: 'new-user', onsubmit: async (event) => {
      event.preventDefault();
      try {
        const user = (await call('POST', '/api/admin/users', {
          body: { email: newEmail.value, password: newPassword.value, emailVerified: newVerified.checked } })).json.user;
        notify(`${t('create')}: ${user.email}`);
        event.target.reset();
        email = '';
        search.value = '';
        page = 0;
        await load();
        showUser(user);
      } catch (error) { fail(error); }
    } },
    h('label', { for: 'new-email' }, t('email')), newEmail,
    h('label', { for: 'new-password' }, t('password')), newPassword,
    h('label', { class: 'check' }, newVerified, ' ', t('verified')),
    h('button', { class: 'button', type: 'submit' }, t('create'))));

  main.replaceChildren(h('h1', {}, t('users')),
    h('form', { class: 'row wrap', role: 'search', onsubmit: (event) => {
      event.preventDefault(); email = search.value.trim(); page = 0; tokens.length = 1; load();
    } }, h('label', { for: 'user-search', class: 'sr-only' }, t('search')), search,
    h('button', { class: 'button', type: 'submit' }, t('find')),
    h('button', { class: 'button ghost', type: 'button', onclick: () => { search.value = ''; email = ''; page = 0; load(); } }, t('clear'))),
    h('div', { class: 'split' }, h('div', {}, list, pager), detail), create);
  await load();
}
