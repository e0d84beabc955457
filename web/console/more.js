// Indexes (composite indexes, their build state; create, drop), Mail (the outbox; held mails with their links)
// and Server (GET /api/admin/status, with the nodes sharing the database; GET /api/admin/traffic, traffic.js).
import { call, get, sentence } from './api.js';
import { confirmAction, fail, h, main, notify } from './console.js';
import { t } from './i18n.js';
import { trafficPanel } from './traffic.js';

function fields(index) {
  return (index.fields ?? []).map((f) => `${f.fieldPath} ${f.order ?? f.arrayConfig ?? ''}`.trim()).join(', ');
}

async function indexes() {
  const list = h('div', { id: 'index-list' });
  const load = async () => {
    try {
      const answer = await get('/api/admin/indexes');
      const items = answer.indexes ?? [];
      list.replaceChildren(items.length ? h('table', { class: 'table' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'collectionGroup'), h('th', { scope: 'col' }, t('field')),
          h('th', { scope: 'col' }, t('state')), h('th', { scope: 'col', class: 'wide' }, t('progress')), h('th', {}, ''))),
        h('tbody', {}, items.map((index) => h('tr', {},
          h('td', {}, index.collectionGroup, h('span', { class: 'hint' }, ` · ${index.queryScope}`)),
          h('td', { class: 'mono' }, fields(index)),
          h('td', {}, h('span', { class: `badge ${index.state === 'READY' ? 'on' : index.state === 'ERROR' ? 'bad' : 'off'}` }, index.state),
            index.message ? h('div', { class: 'hint' }, index.message) : null),
          h('td', { class: 'wide' }, String(index.documentsScanned ?? '')),
          h('td', {}, h('button', { class: 'button danger small', type: 'button', onclick: async () => {
            if (!(await confirmAction(`${t('drop')}: ${index.collectionGroup} (${fields(index)})`, t('confirmDelete'), t('drop')))) return;
            try { await call('DELETE', `/api/admin/indexes/${encodeURIComponent(index.id)}`); notify(`${t('drop')}: ${t('done')}`); load(); } catch (e) { fail(e); }
          } }, t('drop'))))))) : h('p', { class: 'empty' }, t('noIndexes')));
      if (items.some((i) => i.state === 'CREATING')) setTimeout(() => { if (list.isConnected) load(); }, 2000);
    } catch (error) { list.replaceChildren(h('p', { class: 'error-text', role: 'alert' }, sentence(error))); }
  };
  const definition = h('textarea', { id: 'index-definition', class: 'mono', rows: 6, spellcheck: 'false' },
    '{"collectionGroup": "todos", "queryScope": "COLLECTION",\n "fields": [{"fieldPath": "done", "order": "ASCENDING"},\n            {"fieldPath": "createdAt", "order": "DESCENDING"}]}');
  main.replaceChildren(h('h1', {}, t('indexes')), h('section', { class: 'panel' }, list),
    h('details', { class: 'panel' }, h('summary', {}, t('create')),
      h('form', { class: 'stack', onsubmit: async (event) => {
        event.preventDefault();
        let body;
        try { body = JSON.parse(definition.value); } catch (e) { fail({ code: 'INVALID_ARGUMENT', message: `The definition is not JSON: ${e.message}` }); return; }
        try { await call('POST', '/api/admin/indexes', { body }); notify(`${t('create')}: ${t('done')}`); load(); } catch (e) { fail(e); }
      } }, h('label', { for: 'index-definition' }, t('definition')), definition,
      h('button', { class: 'button', type: 'submit' }, t('create')))));
  await load();
}

async function mail() {
  const list = h('div', { id: 'mail-list' });
  const filter = h('select', { id: 'mail-status', 'aria-label': t('status') },
    ['', 'held', 'pending', 'sent', 'failed'].map((s) => h('option', { value: s }, s || t('all'))));
  const load = async () => {
    try {
      const answer = await get(`/api/admin/outbox?limit=100${filter.value ? `&status=${filter.value}` : ''}`);
      const mails = answer.mails ?? [];
      list.replaceChildren(mails.length ? h('table', { class: 'table' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('to')), h('th', { scope: 'col' }, t('subject')),
          h('th', { scope: 'col' }, t('status')), h('th', { scope: 'col', class: 'wide' }, t('attempts')))),
        h('tbody', {}, mails.map((m) => h('tr', {},
          h('td', { class: 'addr' }, m.to),
          h('td', {}, m.subject, h('div', { class: 'hint' }, new Date(m.createTime).toLocaleString()),
            h('div', { class: 'row wrap' },
              m.actionLink ? h('a', { href: m.actionLink, target: '_blank', rel: 'noopener noreferrer' }, t('link')) : null,
              h('button', { class: 'button ghost small', type: 'button', dataset: { resend: m.id }, onclick: async () => {
                if (!(await confirmAction(`${t('resend')}: ${m.subject}`, `${m.to}`, t('resend')))) return;
                try { await call('POST', `/api/admin/outbox/${encodeURIComponent(m.id)}/resend`); notify(`${t('resend')}: ${t('done')}`); load(); } catch (e) { fail(e); }
              } }, t('resend')))),
          h('td', {}, h('span', { class: `badge ${m.status === 'sent' ? 'on' : m.status === 'failed' ? 'bad' : 'off'}` }, m.status),
            m.lastError ? h('div', { class: 'hint' }, m.lastError) : null),
          h('td', { class: 'wide' }, String(m.attempts)))))) :
        h('p', { class: 'empty' }, t('noMail')));
    } catch (error) { list.replaceChildren(h('p', { class: 'error-text', role: 'alert' }, sentence(error))); }
  };
  filter.addEventListener('change', load);
  main.replaceChildren(h('h1', {}, t('mail')),
    h('div', { class: 'row wrap' }, filter, h('button', { class: 'button ghost', type: 'button', onclick: load }, t('refresh'))),
    h('section', { class: 'panel' }, list));
  await load();
}

function bytes(n) {
  if (n === null || n === undefined) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(i ? 1 : 0)} ${units[i]}`;
}

function duration(seconds) {
  const d = Math.floor(seconds / 86400);
  const hh = Math.floor((seconds % 86400) / 3600);
  const mm = Math.floor((seconds % 3600) / 60);
  return `${d ? `${d}d ` : ''}${hh}h ${mm}m ${seconds % 60}s`;
}

function ago(seconds) {
  return seconds < 60 ? t('secondsAgo', Math.round(seconds)) : t('minutesAgo', Math.round(seconds / 60));
}

function nodeList(nodes) {
  if (!nodes) return null;
  return h('div', { id: 'node-list' }, h('table', { class: 'table' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('node')), h('th', { scope: 'col' }, t('sVersion')),
      h('th', { scope: 'col', class: 'wide' }, t('started')), h('th', { scope: 'col' }, t('lastSeen')))),
    h('tbody', {}, nodes.map((n) => h('tr', { dataset: { node: n.name } },
      h('td', { class: 'addr' }, n.address || n.name, n.self ? h('span', { class: 'hint' }, ` · ${t('thisNode')}`) : null,
        h('div', { class: 'hint' }, n.name)),
      h('td', {}, n.version || '—'),
      h('td', { class: 'wide' }, new Date(n.startTime).toLocaleString()),
      h('td', {}, h('span', { class: `badge ${n.alive ? 'on' : 'off'}` }, n.alive ? t('alive') : t('gone')),
        ' ', h('span', { class: 'seen' }, ago(n.lastSeenSecondsAgo))))))));
}

async function server() {
  const facts = h('dl', { class: 'facts', id: 'server-facts' });
  const nodes = h('section', { class: 'panel', id: 'server-nodes', hidden: true });
  const traffic = trafficPanel();
  let timer = null;
  const load = async () => {
    const [status, history] = await Promise.allSettled([get('/api/admin/status'), get('/api/admin/traffic')]);
    if (status.status === 'fulfilled') {
      const s = status.value;
      const rows = [[t('sVersion'), s.version], [t('sUptime'), duration(s.uptimeSeconds)], [t('sEngine'), s.engine],
        [t('sData'), bytes(s.dataBytes)], [t('sConnections'), s.connections], [t('sStreams'), s.listenStreams],
        [t('sTargets'), s.listenTargets],
        [t('sLog'), `${s.changeLogPosition} (${t('oldest')} ${s.changeLogOldest}, ${t('kept')} ${duration(s.changeLogRetentionSeconds)})`],
        [t('sBackup'), s.lastBackup ? `${new Date(s.lastBackup.time).toLocaleString()} · ${s.lastBackup.file}` : t('none')],
        [t('sMode'), s.developmentMode ? t('development') : t('production')],
        [t('sCluster'), s.nodes ? t('nodesSharing', s.nodes.filter((n) => n.alive).length) : t('singleNode')]];
      facts.replaceChildren(...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, String(v))]));
      nodes.hidden = !s.nodes;
      if (s.nodes) nodes.replaceChildren(h('h2', {}, t('nodes')), nodeList(s.nodes));
    } else {
      facts.replaceChildren(h('p', { class: 'error-text', role: 'alert' }, sentence(status.reason)));
    }
    if (history.status === 'fulfilled') traffic.update(history.value);
    else traffic.fail(h('span', { class: 'error-text', role: 'alert' }, sentence(history.reason)));
  };
  main.replaceChildren(h('h1', {}, t('server')),
    h('section', { class: 'panel' }, h('h2', {}, t('traffic')), traffic.node),
    h('section', { class: 'panel' }, facts), nodes);
  await load();
  timer = setInterval(load, 5000);
  return () => { clearInterval(timer); traffic.stop(); };
}

export async function render(name) {
  if (name === 'indexes') return indexes();
  if (name === 'mail') return mail();
  return server();
}
