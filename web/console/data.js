// Data: the collection tree, a collection's documents page by page (the page shown is a live listen target),
// a document with its value types, create/edit/delete carrying the version read (If-Match), and a query builder
// that shows the same query in kura.js and KuraClient. Uses /api/docs, /api/query, /api/listen and
// /api/admin/collections.
import { call, get, listen, pathURL, sentence, ApiError } from './api.js';
import { confirmAction, fail, h, main, notify } from './console.js';
import { t } from './i18n.js';
import { JSONSyntaxError, field, parseTyped, printTyped } from './typed-json.js';

const PAGE = 25;

function go(path) { location.hash = `#data/${path.split('/').map(encodeURIComponent).join('/')}`; }

function segmentsOf(path) { return path ? path.split('/').filter(Boolean) : []; }

/** The tree along `path`: top-level collections, and under each document on the path its subcollections. */
async function tree(path) {
  const segments = segmentsOf(path);
  const level = async (parent, depth) => {
    const query = parent ? `?parent=${encodeURIComponent(parent)}&pageSize=200` : '?pageSize=200';
    const answer = await get(`/api/admin/collections${query}`);
    const ids = answer.collectionIds ?? [];
    if (!ids.length && depth === 0) return h('p', { class: 'empty' }, t('noCollections'));
    return h('ul', { class: 'tree', role: depth === 0 ? 'tree' : 'group' }, await Promise.all(ids.map(async (id) => {
      const collectionPath = parent ? `${parent}/${id}` : id;
      const onPath = segments[depth * 2] === id;
      const current = onPath && segments.length === depth * 2 + 1;
      const children = [];
      if (onPath && segments.length > depth * 2 + 1) {
        const documentPath = `${collectionPath}/${segments[depth * 2 + 1]}`;
        children.push(h('ul', { class: 'tree', role: 'group' }, h('li', { role: 'treeitem' },
          h('a', { href: '#', class: 'doc-link', 'aria-current': segments.length === depth * 2 + 2 ? 'page' : null,
            onclick: (e) => { e.preventDefault(); go(documentPath); } }, '▤ ', segments[depth * 2 + 1]),
          await level(documentPath, depth + 1))));
      }
      return h('li', { role: 'treeitem', 'aria-expanded': onPath ? 'true' : 'false' },
        h('a', { href: '#', 'aria-current': current ? 'page' : null, dataset: { collection: collectionPath },
          onclick: (e) => { e.preventDefault(); go(collectionPath); } }, '▦ ', id),
        children);
    })));
  };
  return level('', 0);
}

function crumbs(path) {
  const segments = segmentsOf(path);
  return h('nav', { class: 'crumbs', 'aria-label': t('path') },
    h('a', { href: '#data' }, '/'),
    segments.map((s, i) => [' / ', i === segments.length - 1 ? h('strong', {}, s)
      : h('a', { href: `#data/${segments.slice(0, i + 1).map(encodeURIComponent).join('/')}` }, s)]));
}

function preview(data) {
  const text = JSON.stringify(data ?? {});
  return text.length > 90 ? text.slice(0, 89) + '…' : text;
}

function when(text) {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text ?? '' : date.toLocaleString();
}

function documentTable(documents) {
  if (!documents.length) return h('p', { class: 'empty' }, t('noDocuments'));
  return h('table', { class: 'table' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'ID'), h('th', { scope: 'col', class: 'wide' }, t('version')),
      h('th', { scope: 'col' }, 'data'))),
    h('tbody', {}, documents.map((d) => h('tr', { dataset: { id: d.id } },
      h('td', {}, h('a', { href: `#data/${pathURL(d.path)}` }, d.id)),
      h('td', { class: 'wide' }, String(d.version)),
      h('td', { class: 'mono clip', title: preview(d.data) }, preview(d.data))))));
}

/** kura.js and KuraClient code for a query built in the form. */
function code(collectionPath, filters, order, limitValue, counting) {
  const ops = { '==': 'isEqualTo', '!=': 'isNotEqualTo', '<': 'isLessThan', '<=': 'isLessThanOrEqualTo', '>': 'isGreaterThan',
    '>=': 'isGreaterThanOrEqualTo', 'array-contains': 'arrayContains', 'array-contains-any': 'arrayContainsAny', in: 'in', 'not-in': 'notIn' };
  const swiftValue = (v) => JSON.stringify(v).replace(/^\{/, '[').replace(/\}$/, ']').replace(/":/g, '": ');
  const js = [`query(collection(db, ${JSON.stringify(collectionPath)})`];
  for (const f of filters) js.push(`where(${JSON.stringify(f.field)}, ${JSON.stringify(f.op)}, ${JSON.stringify(f.value)})`);
  if (order.field) js.push(`orderBy(${JSON.stringify(order.field)}, ${JSON.stringify(order.direction)})`);
  if (limitValue) js.push(`limit(${limitValue})`);
  const jsQuery = js.length === 1 ? js[0] + ')' : js[0] + ',\n  ' + js.slice(1).join(',\n  ') + ')';
  const jsCode = `const q = ${jsQuery};\n` + (counting
    ? 'const count = (await getCountFromServer(q)).data().count;' : 'const snapshot = await getDocs(q);');
  const segments = segmentsOf(collectionPath);
  let swift = `kura.collection(${JSON.stringify(segments[0])})`;
  for (let i = 1; i < segments.length; i += 2) {
    swift += `.document(${JSON.stringify(segments[i])}).collection(${JSON.stringify(segments[i + 1])})`;
  }
  for (const f of filters) swift += `\n    .whereField(${JSON.stringify(f.field)}, ${ops[f.op]}: ${swiftValue(f.value)})`;
  if (order.field) swift += `\n    .order(by: ${JSON.stringify(order.field)}${order.direction === 'desc' ? ', descending: true' : ''})`;
  if (limitValue) swift += `\n    .limit(to: ${limitValue})`;
  const swiftCode = `let q = ${swift}\n` + (counting ? 'let count = try await q.count()' : 'let snapshot = try await q.getDocuments()');
  return { jsCode, swiftCode };
}

function queryBuilder(collectionPath, results) {
  const filters = h('div', { class: 'stack', id: 'filters' });
  const orderField = h('input', { id: 'q-order', placeholder: 'createdAt', autocomplete: 'off' });
  const orderDirection = h('select', { id: 'q-direction', 'aria-label': 'direction' },
    h('option', { value: 'asc' }, 'asc'), h('option', { value: 'desc' }, 'desc'));
  const limitInput = h('input', { id: 'q-limit', type: 'number', min: 1, max: 1000, value: PAGE, inputmode: 'numeric' });
  const jsOut = h('pre', { class: 'code', id: 'code-js' });
  const swiftOut = h('pre', { class: 'code', id: 'code-swift' });
  const addFilter = () => {
    const row = h('div', { class: 'row wrap filter' },
      h('input', { 'aria-label': t('field'), placeholder: t('field'), class: 'f-field', oninput: update }),
      h('select', { 'aria-label': t('op'), class: 'f-op', onchange: update },
        ['==', '!=', '<', '<=', '>', '>=', 'array-contains', 'array-contains-any', 'in', 'not-in'].map((o) => h('option', {}, o))),
      h('input', { 'aria-label': t('value'), placeholder: '"text", 1, true, [1,2]', class: 'f-value mono', oninput: update }),
      h('button', { type: 'button', class: 'button ghost', 'aria-label': t('delete'), onclick: () => { row.remove(); update(); } }, '✕'));
    filters.append(row);
    row.querySelector('input').focus();
  };
  const read = () => {
    const list = [];
    for (const row of filters.querySelectorAll('.filter')) {
      const name = row.querySelector('.f-field').value.trim();
      if (!name) continue;
      const raw = row.querySelector('.f-value').value.trim();
      let value;
      try { value = JSON.parse(raw); } catch { throw new ApiError(400, 'INVALID_QUERY', `the value for "${name}" is not JSON (write strings in double quotes)`); }
      list.push({ field: name, op: row.querySelector('.f-op').value, value });
    }
    const order = { field: orderField.value.trim(), direction: orderDirection.value };
    const limitValue = Number(limitInput.value) || null;
    return { list, order, limitValue };
  };
  const body = (counting) => {
    const { list, order, limitValue } = read();
    const q = { collection: collectionPath };
    if (list.length) q.where = list;
    if (order.field) q.orderBy = [order];
    if (limitValue && !counting) q.limit = limitValue;
    return q;
  };
  function update(counting = false) {
    try {
      const { list, order, limitValue } = read();
      const { jsCode, swiftCode } = code(collectionPath, list, order, limitValue, counting === true);
      jsOut.textContent = jsCode;
      swiftOut.textContent = swiftCode;
    } catch (error) { jsOut.textContent = sentence(error); swiftOut.textContent = ''; }
  }
  const report = (error) => {
    const match = /POST it to \/api\/admin\/indexes: (\{.*\})\s*$/.exec(error.message ?? '');
    results.replaceChildren(h('p', { class: 'error-text', role: 'alert' }, sentence(error)),
      match ? h('button', { class: 'button', type: 'button', onclick: async () => {
        try { await call('POST', '/api/admin/indexes', { body: match[1] }); notify(`${t('indexes')}: ${t('done')}`); } catch (e) { fail(e); }
      } }, t('create') + ' ' + t('indexes')) : null);
  };
  const form = h('details', { class: 'panel' }, h('summary', {}, t('queryBuilder')),
    h('form', { class: 'stack', id: 'query-form', onsubmit: async (event) => {
      event.preventDefault();
      update();
      try {
        const answer = (await call('POST', '/api/query', { body: body(false) })).json;
        results.replaceChildren(h('p', { class: 'hint' }, `${answer.documents.length} ·`), documentTable(answer.documents));
      } catch (error) { report(error); }
    } },
    filters,
    h('div', { class: 'row wrap' }, h('button', { type: 'button', class: 'button ghost', onclick: () => { addFilter(); update(); } }, t('addFilter'))),
    h('div', { class: 'row wrap' }, h('label', { for: 'q-order' }, t('orderBy')), orderField, orderDirection,
      h('label', { for: 'q-limit' }, t('limit')), limitInput),
    h('div', { class: 'row wrap' }, h('button', { class: 'button', type: 'submit' }, t('run')),
      h('button', { class: 'button ghost', type: 'button', onclick: async () => {
        update(true);
        try {
          const answer = (await call('POST', '/api/query/count', { body: body(true) })).json;
          results.replaceChildren(h('p', { class: 'count', id: 'count-result' }, `${t('count')}: ${answer.count}`));
        } catch (error) { report(error); }
      } }, t('count'))),
    h('h3', {}, t('code')), h('p', { class: 'hint' }, 'kura.js'), jsOut, h('p', { class: 'hint' }, 'KuraClient (Swift)'), swiftOut));
  orderField.addEventListener('input', update);
  orderDirection.addEventListener('change', update);
  limitInput.addEventListener('input', update);
  update();
  return form;
}

async function collectionView(path, holder) {
  const cursors = [null];
  let page = 0;
  let stop = null;
  const table = h('div', { id: 'documents' });
  const pager = h('div', { class: 'row' });
  const liveBadge = h('span', { class: 'badge off', id: 'live', role: 'status' }, t('loading'));
  const results = h('div', { id: 'query-results' });
  let documents = new Map();

  const show = () => {
    const list = [...documents.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    table.replaceChildren(documentTable(list));
    const last = list[list.length - 1];
    pager.replaceChildren(...[
      page > 0 ? h('button', { class: 'button ghost', type: 'button', onclick: () => { page -= 1; open(); } }, '←') : null,
      list.length >= PAGE && last ? h('button', { class: 'button ghost', type: 'button', id: 'docs-next', onclick: () => {
        cursors[page + 1] = last.id; page += 1; open();
      } }, t('next')) : null].filter(Boolean));
  };
  const open = () => {
    stop?.();
    documents = new Map();
    liveBadge.textContent = t('loading');
    liveBadge.className = 'badge off';
    const query = { collection: path, orderBy: [{ field: 'id', direction: 'asc' }], limit: PAGE };
    if (cursors[page]) query.startAfter = [cursors[page]];
    stop = listen(query, (event, data) => {
      if (event === 'snapshot') {
        documents = new Map(data.documents.map((d) => [d.path, d]));
        liveBadge.textContent = `● ${t('live')}`;
        liveBadge.className = 'badge on';
        show();
      } else if (event === 'changes') {
        for (const change of data.changes) {
          if (change.type === 'removed') documents.delete(change.document.path);
          else documents.set(change.document.path, change.document);
        }
        show();
      } else if (event === 'error' || event === 'auth_revoked' || event === 'overflow') {
        liveBadge.textContent = data?.code ?? event;
        fail(new ApiError(0, data?.code ?? event.toUpperCase(), data?.message ?? `the live view stopped (${event})`));
      }
    }, (error) => { liveBadge.textContent = error.code ?? 'offline'; fail(error); });
  };

  const newId = h('input', { id: 'new-id', autocomplete: 'off', spellcheck: 'false' });
  const newData = h('textarea', { id: 'new-data', rows: 6, class: 'mono', spellcheck: 'false' }, '{\n  \n}');
  const newError = h('p', { class: 'error-text', role: 'alert' });
  const create = h('details', { class: 'panel' }, h('summary', {}, t('newDocument')),
    h('form', { class: 'stack', id: 'new-doc', onsubmit: async (event) => {
      event.preventDefault();
      newError.textContent = '';
      let node;
      try { node = parseTyped(newData.value); } catch (error) { newError.textContent = `${error.message} (INVALID_ARGUMENT)`; return; }
      if (node.type !== 'map') { newError.textContent = 'A document is a JSON object. (INVALID_ARGUMENT)'; return; }
      const body = `{"data":${printTyped(node)}}`;
      try {
        const id = newId.value.trim();
        const answer = id
          ? await call('PUT', `/api/docs/${pathURL(path)}/${encodeURIComponent(id)}?exists=false`, { body })
          : await call('POST', `/api/docs/${pathURL(path)}`, { body });
        notify(`${t('create')}: ${answer.json.path}`);
        go(answer.json.path);
      } catch (error) { newError.textContent = sentence(error); }
    } },
    h('label', { for: 'new-id' }, t('documentId')), newId,
    h('label', { for: 'new-data' }, 'data (JSON)'), newData, newError,
    h('button', { class: 'button', type: 'submit' }, t('create'))));

  holder.replaceChildren(crumbs(path),
    h('div', { class: 'row between' }, h('h2', {}, segmentsOf(path).pop()), liveBadge),
    table, pager, create, queryBuilder(path, results), results);
  open();
  return () => stop?.();
}

const typeLabel = { integer: 'int', double: 'double', string: 'string', timestamp: 'time', boolean: 'bool', null: 'null', map: 'map', array: 'array' };

function typedView(node) {
  const label = h('span', { class: `type t-${node.type}` }, typeLabel[node.type]);
  if (node.type === 'map' || node.type === 'array') {
    const entries = node.type === 'map' ? node.value : node.value.map((v, i) => [String(i), v]);
    if (!entries.length) return h('span', {}, label, node.type === 'map' ? ' {}' : ' []');
    return h('span', {}, label, h('dl', { class: 'typed' }, entries.map(([k, v]) => [h('dt', {}, k), h('dd', {}, typedView(v))])));
  }
  const text = node.type === 'string' || node.type === 'timestamp' ? JSON.stringify(node.value) : String(node.value);
  return h('span', {}, label, ' ', h('code', {}, text));
}

async function documentView(path, holder) {
  const segments = segmentsOf(path);
  let answer;
  try {
    answer = await call('GET', `/api/docs/${pathURL(path)}`);
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'NOT_FOUND') throw error;
    holder.replaceChildren(crumbs(path), h('p', { class: 'empty' }, sentence(error)));
    return;
  }
  const root = parseTyped(answer.text);
  const version = Number(field(root, 'version')?.value);
  const data = field(root, 'data') ?? { type: 'map', value: [] };
  const editor = h('textarea', { id: 'doc-editor', rows: 14, class: 'mono', spellcheck: 'false', hidden: true }, printTyped(data));
  const editError = h('p', { class: 'error-text', role: 'alert', id: 'doc-error' });
  const view = h('div', { class: 'typed-root', id: 'doc-view' }, typedView(data));
  const save = h('button', { class: 'button', type: 'button', id: 'doc-save', hidden: true, onclick: async () => {
    editError.textContent = '';
    let node;
    try {
      node = parseTyped(editor.value);
    } catch (error) {
      editError.textContent = `${error.message} (INVALID_ARGUMENT)`;
      if (error instanceof JSONSyntaxError) {
        const lines = editor.value.split('\n');
        const offset = lines.slice(0, error.line - 1).reduce((n, l) => n + l.length + 1, 0) + error.column - 1;
        editor.focus();
        editor.setSelectionRange(offset, offset + 1);
      }
      return;
    }
    if (node.type !== 'map') { editError.textContent = 'A document is a JSON object. (INVALID_ARGUMENT)'; return; }
    try {
      await call('PUT', `/api/docs/${pathURL(path)}`, { body: `{"data":${printTyped(node)}}`, ifMatch: version });
      notify(`${t('save')}: ${t('done')}`);
      documentView(path, holder);
    } catch (error) {
      editError.textContent = error.code === 'FAILED_PRECONDITION' && error.status === 412
        ? `${t('conflict', version)} (FAILED_PRECONDITION)` : sentence(error);
    }
  } }, t('save'));
  const subcollections = h('div', { id: 'subcollections' });
  get(`/api/admin/collections?parent=${encodeURIComponent(path)}&pageSize=200`).then((answer) => {
    const ids = answer.collectionIds ?? [];
    subcollections.replaceChildren(h('h3', {}, t('subcollections')), ids.length
      ? h('ul', { class: 'inline' }, ids.map((id) => h('li', {}, h('a', { href: `#data/${pathURL(path)}/${encodeURIComponent(id)}` }, id))))
      : h('p', { class: 'hint' }, t('none')));
  }, fail);
  holder.replaceChildren(crumbs(path),
    h('div', { class: 'row between wrap' }, h('h2', {}, segments[segments.length - 1]),
      h('span', { class: 'hint', id: 'doc-version' }, `${t('version')} ${version} · ${when(field(root, 'updateTime')?.value)}`)),
    view, editor, editError,
    h('div', { class: 'row wrap' },
      h('button', { class: 'button ghost', type: 'button', id: 'doc-edit', onclick: (e) => {
        editor.hidden = !editor.hidden; save.hidden = editor.hidden; view.hidden = !editor.hidden;
        e.target.textContent = editor.hidden ? t('edit') : t('cancel');
        if (!editor.hidden) editor.focus();
      } }, t('edit')),
      save,
      h('button', { class: 'button ghost', type: 'button', onclick: () => documentView(path, holder) }, t('reload')),
      h('button', { class: 'button danger', type: 'button', id: 'doc-delete', onclick: async () => {
        if (!(await confirmAction(`${t('delete')}: ${path}`, t('confirmDelete'), t('delete')))) return;
        try {
          await call('DELETE', `/api/docs/${pathURL(path)}`, { ifMatch: version });
          notify(`${t('delete')}: ${t('done')}`);
          go(segments.slice(0, -1).join('/'));
        } catch (error) {
          fail(error.status === 412 ? new ApiError(412, 'FAILED_PRECONDITION', t('conflict', version)) : error);
        }
      } }, t('delete'))),
    subcollections);
}

export async function render(_, path) {
  const side = h('aside', { class: 'panel side', 'aria-label': t('collections') }, h('h2', {}, t('collections')), h('p', { class: 'lead' }, t('loading')));
  const holder = h('section', { class: 'content' });
  const go = h('input', { id: 'data-path', value: path, placeholder: 'users/u1', autocomplete: 'off', spellcheck: 'false' });
  main.replaceChildren(h('h1', {}, t('data')),
    h('form', { class: 'row wrap', onsubmit: (e) => { e.preventDefault(); location.hash = `#data/${go.value.split('/').filter(Boolean).map(encodeURIComponent).join('/')}`; } },
      h('label', { for: 'data-path' }, t('path')), go, h('button', { class: 'button ghost', type: 'submit' }, t('open'))),
    h('div', { class: 'split data' }, side, holder));
  tree(path).then((node) => side.replaceChildren(h('h2', {}, t('collections')), node),
    (error) => side.replaceChildren(h('p', { class: 'error-text' }, sentence(error))));
  const segments = segmentsOf(path);
  if (!segments.length) { holder.replaceChildren(h('p', { class: 'hint' }, t('collections') + ' →')); return null; }
  if (segments.length % 2 === 1) return collectionView(segments.join('/'), holder);
  await documentView(segments.join('/'), holder);
  return null;
}
