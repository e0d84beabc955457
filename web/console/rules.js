// Rules: an editor with line numbers where a compile error is shown at its line and column, a test-table runner
// (the tables `kura rules test` reads), and publishing with a diff against the rules in force.
// Uses GET/POST /api/admin/rules and POST /api/admin/rules/test.
import { call, get, sentence } from './api.js';
import { confirmAction, fail, h, main, notify } from './console.js';
import { t } from './i18n.js';

const TABLE_KEY = 'kura.console.rulesTable';
const SAMPLE_TABLE = `{
  "cases": [
    {"name": "a signed-out reader", "auth": null, "method": "get", "path": "/users/alice", "expect": "deny"},
    {"name": "alice reads her profile", "auth": {"uid": "alice"}, "method": "get", "path": "/users/alice", "expect": "allow"}
  ]
}`;

/** Lines of `a` and `b` as a list of [' ' | '-' | '+', line] (longest common subsequence). */
export function lineDiff(a, b) {
  const x = a.split('\n');
  const y = b.split('\n');
  if (x.length * y.length > 4_000_000) return [...x.map((l) => ['-', l]), ...y.map((l) => ['+', l])];
  const n = x.length;
  const m = y.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) { out.push([' ', x[i]]); i++; j++; }
    else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) { out.push(['+', y[j]]); j++; }
    else { out.push(['-', x[i]]); i++; }
  }
  return out;
}

/** `kura.rules:12:5: message` → {line, column, message}. */
function position(message) {
  const match = /(?:^|\s)[^\s:]*:(\d+):(\d+):\s*(.*)$/s.exec(message);
  return match ? { line: Number(match[1]), column: Number(match[2]), message: match[3] } : null;
}

export async function render() {
  let live = (await get('/api/admin/rules')).source;
  const editor = h('textarea', { id: 'rules-editor', class: 'mono editor', spellcheck: 'false', wrap: 'off',
    'aria-label': t('rules'), 'aria-describedby': 'rules-error' }, live);
  const gutter = h('pre', { class: 'gutter', 'aria-hidden': 'true', id: 'rules-gutter' });
  const error = h('p', { class: 'error-text', role: 'alert', id: 'rules-error' });
  let errorLine = 0;
  const numbers = () => {
    const count = editor.value.split('\n').length;
    gutter.replaceChildren(...Array.from({ length: count }, (_, i) =>
      h('span', { class: i + 1 === errorLine ? 'bad' : null, dataset: { line: i + 1 } }, String(i + 1))));
    gutter.scrollTop = editor.scrollTop;
  };
  editor.addEventListener('input', () => { if (errorLine) { errorLine = 0; error.textContent = ''; } numbers(); });
  editor.addEventListener('scroll', () => { gutter.scrollTop = editor.scrollTop; });
  editor.addEventListener('keydown', (event) => {
    if (event.key === 'Tab' && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey && editor.dataset.tabs === 'on') {
      event.preventDefault();
      editor.setRangeText('  ', editor.selectionStart, editor.selectionEnd, 'end');
    }
  });

  /** Shows a compile error at its place; answers whether the error had one. */
  const showError = (e) => {
    const at = e.code === 'INVALID_RULES' ? position(e.message) : null;
    if (!at) { error.textContent = sentence(e); return; }
    errorLine = at.line;
    error.textContent = `${t('rules')} — line ${at.line}, column ${at.column}: ${at.message} (${e.code})`;
    numbers();
    const lines = editor.value.split('\n');
    const offset = lines.slice(0, at.line - 1).reduce((n, l) => n + l.length + 1, 0) + Math.max(0, at.column - 1);
    editor.focus();
    editor.setSelectionRange(offset, Math.min(offset + 1, editor.value.length));
    const lineHeight = parseFloat(getComputedStyle(editor).lineHeight) || 20;
    editor.scrollTop = Math.max(0, (at.line - 4) * lineHeight);
  };

  const check = async () => {
    error.textContent = '';
    errorLine = 0;
    try {
      await call('POST', '/api/admin/rules/test', { body: { source: editor.value, table: [] } });
      numbers();
      notify(`${t('check')}: ${t('done')}`);
      return true;
    } catch (e) { showError(e); return false; }
  };

  const publish = async () => {
    if (!(await check())) return;
    const diff = lineDiff(live, editor.value);
    if (diff.every(([k]) => k === ' ')) { notify(t('noChanges')); return; }
    const shown = h('pre', { class: 'diff', id: 'rules-diff' }, diff.filter(([k], i) =>
      diff.slice(Math.max(0, i - 2), i + 3).some(([c]) => c !== ' ')).map(([k, line]) =>
      h('span', { class: k === '+' ? 'add' : k === '-' ? 'del' : null }, `${k} ${line}\n`)));
    if (!(await confirmAction(t('diff'), shown, t('publish')))) return;
    try {
      live = (await call('POST', '/api/admin/rules', { body: { source: editor.value } })).json.source;
      notify(t('published'));
      loadVersions();
    } catch (e) { showError(e); }
  };

  const table = h('textarea', { id: 'rules-table', class: 'mono', rows: 10, spellcheck: 'false' },
    localStorage.getItem(TABLE_KEY) ?? SAMPLE_TABLE);
  const results = h('div', { id: 'rules-results' });
  const runTable = async () => {
    localStorage.setItem(TABLE_KEY, table.value);
    let parsed;
    try { parsed = JSON.parse(table.value); } catch (e) {
      results.replaceChildren(h('p', { class: 'error-text', role: 'alert' }, `The test table is not JSON: ${e.message} (INVALID_ARGUMENT)`));
      return;
    }
    try {
      const answer = (await call('POST', '/api/admin/rules/test', { body: { source: editor.value, table: parsed } })).json;
      results.replaceChildren(
        h('p', { class: answer.failed ? 'error-text' : 'ok-text', id: 'rules-summary' }, `${answer.passed} passed, ${answer.failed} failed`),
        h('table', { class: 'table' }, h('tbody', {}, answer.results.map((r) => h('tr', {},
          h('td', {}, h('span', { class: `badge ${r.passed ? 'on' : 'bad'}` }, r.passed ? 'PASS' : 'FAIL')),
          h('td', {}, r.name), h('td', {}, r.decision), h('td', { class: 'wide hint' }, r.reason ?? ''))))));
    } catch (e) {
      if (e.code === 'INVALID_RULES') showError(e);
      results.replaceChildren(h('p', { class: 'error-text', role: 'alert' }, sentence(e)));
    }
  };

  const versions = h('div', { id: 'rules-versions' });
  const loadVersions = async () => {
    try {
      const list = (await get('/api/admin/rules/versions')).versions ?? [];
      versions.replaceChildren(list.length ? h('table', { class: 'table' }, h('tbody', {}, list.map((v, i) => h('tr', {},
        h('td', {}, new Date(v.publishTime).toLocaleString(), i === 0 ? h('span', { class: 'badge on' }, ` ${t('current')}`) : null),
        h('td', { class: 'wide hint' }, `${v.bytes} B`),
        h('td', {}, i === 0 ? null : h('button', { class: 'button ghost small', type: 'button', dataset: { version: v.id }, onclick: async () => {
          try {
            editor.value = (await get(`/api/admin/rules/versions/${encodeURIComponent(v.id)}`)).source;
            editor.dispatchEvent(new Event('input'));
            await publish();
          } catch (e) { fail(e); }
        } }, t('rollback'))))))) : h('p', { class: 'hint' }, t('noVersions')));
    } catch (e) { versions.replaceChildren(h('p', { class: 'error-text' }, sentence(e))); }
  };

  main.replaceChildren(h('h1', {}, t('rules')),
    h('section', { class: 'panel stack' },
      h('div', { class: 'code-editor' }, gutter, editor), error,
      h('div', { class: 'row wrap' },
        h('button', { class: 'button ghost', type: 'button', id: 'rules-check', onclick: check }, t('check')),
        h('button', { class: 'button', type: 'button', id: 'rules-publish', onclick: publish }, t('publish')),
        h('button', { class: 'button ghost', type: 'button', onclick: () => { editor.value = live; editor.dispatchEvent(new Event('input')); } },
          t('liveRules')),
        h('label', { class: 'check' }, h('input', { type: 'checkbox', onchange: (e) => { editor.dataset.tabs = e.target.checked ? 'on' : 'off'; } }),
          ' Tab ⇥'))),
    h('section', { class: 'panel stack' }, h('h2', {}, 'Test table'),
      h('p', { class: 'hint' }, 'kura rules test'), table,
      h('div', { class: 'row' }, h('button', { class: 'button', type: 'button', id: 'rules-run', onclick: runTable }, t('run'))),
      results),
    h('section', { class: 'panel stack' }, h('h2', {}, t('versions')), versions));
  numbers();
  loadVersions();
}
