// The Server section's traffic chart (GET /api/admin/traffic): requests per second as bars, the p50 and p99
// latencies as lines, drawn as inline SVG at the width of its box; a caption that says the same in one sentence
// and a table of the intervals for whoever does not see the chart.
import { h } from './console.js';
import { language, t } from './i18n.js';

const SVG = 'http://www.w3.org/2000/svg';

function s(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

/** Requests per second: one decimal below 100. */
export function rate(value) {
  return value >= 100 ? String(Math.round(value)) : value.toFixed(1);
}

/** Milliseconds with the digits that matter. */
export function ms(value) {
  if (value === null || value === undefined) return '—';
  if (value < 1) return `${value.toFixed(2)} ms`;
  if (value < 10) return `${value.toFixed(1)} ms`;
  return `${Math.round(value)} ms`;
}

/** The smallest 1, 2 or 5 × 10^k at least `value` (1 for nothing). */
function niceCeiling(value) {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

function minutes(seconds) {
  return Math.max(1, Math.round(seconds / 60));
}

/** The one-sentence summary of `traffic` (the caption; read by screen readers with the figure). */
export function summarize(traffic) {
  const sum = traffic.summary;
  const window = sum.seconds < 90 ? t('secondsSpan', Math.round(sum.seconds)) : t('minutesSpan', minutes(sum.seconds));
  return t('trafficCaption', window, rate(sum.requestsPerSecond), ms(sum.p50Ms), ms(sum.p95Ms), ms(sum.p99Ms),
    sum.requests, sum.errors);
}

function draw(box, traffic) {
  const width = Math.max(280, Math.round(box.clientWidth || 600));
  const height = width < 560 ? 170 : 210;
  const pad = { left: 44, right: 52, top: 22, bottom: 24 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const intervals = traffic.intervals;
  // The whole window once the node has been up that long; before, the time since it started, 5 minutes at least.
  const windowSlots = Math.round(traffic.windowSeconds / traffic.intervalSeconds);
  const slots = Math.max(intervals.length, Math.min(windowSlots, Math.round(300 / traffic.intervalSeconds)));
  const slotW = plotW / slots;
  const offset = slots - intervals.length;  // the window starts before the server did: empty slots on the left
  const maxRate = niceCeiling(Math.max(...intervals.map((i) => i.requestsPerSecond)));
  const maxMs = niceCeiling(Math.max(...intervals.map((i) => i.p99Ms ?? 0)));
  const x = (index) => pad.left + (offset + index) * slotW;
  const yRate = (v) => pad.top + plotH - (v / maxRate) * plotH;
  const yMs = (v) => pad.top + plotH - (v / maxMs) * plotH;
  const svg = s('svg', { class: 'chart', width, height, viewBox: `0 0 ${width} ${height}`, 'aria-hidden': 'true', focusable: 'false' });
  for (const fraction of [0, 0.5, 1]) {
    const y = pad.top + plotH - fraction * plotH;
    svg.append(s('line', { class: 'grid', x1: pad.left, x2: width - pad.right, y1: y, y2: y }));
    svg.append(s('text', { class: 'axis rate', x: pad.left - 6, y: y + 4, 'text-anchor': 'end' },
      String(Math.round(maxRate * fraction * 100) / 100)));
    svg.append(s('text', { class: 'axis ms', x: width - pad.right + 6, y: y + 4, 'text-anchor': 'start' },
      String(Math.round(maxMs * fraction * 100) / 100)));
  }
  svg.append(s('text', { class: 'axis rate', x: pad.left - 6, y: 12, 'text-anchor': 'end' }, t('perSecond')));
  svg.append(s('text', { class: 'axis ms', x: width - pad.right + 6, y: 12, 'text-anchor': 'start' }, 'ms'));
  // Time: minutes before now, at most five labels.
  const windowMinutes = (slots * traffic.intervalSeconds) / 60;
  const step = [1, 2, 5, 10, 15, 30, 60, 120, 240, 480].find((m) => windowMinutes / m <= (width < 560 ? 2 : 5)) ?? 720;
  for (let m = 0; m <= windowMinutes + 1e-9; m += step) {
    const px = width - pad.right - (m * 60 / traffic.intervalSeconds) * slotW;
    svg.append(s('line', { class: 'tick', x1: px, x2: px, y1: pad.top + plotH, y2: pad.top + plotH + 4 }));
    const anchor = m === 0 ? 'end' : px - 24 < pad.left ? 'start' : 'middle';
    svg.append(s('text', { class: 'axis', x: px, y: height - 6, 'text-anchor': anchor },
      m === 0 ? t('now') : t('minutesAgo', m)));
  }
  intervals.forEach((interval, index) => {
    if (!interval.requests) return;
    const top = yRate(interval.requestsPerSecond);
    svg.append(s('rect', { class: 'bar', x: x(index) + slotW * 0.1, y: top, width: Math.max(1, slotW * 0.8), height: pad.top + plotH - top }));
  });
  for (const [key, name] of [['p50Ms', 'p50'], ['p99Ms', 'p99']]) {
    const points = [];
    const paths = [];
    intervals.forEach((interval, index) => {
      if (interval[key] === null) {
        if (points.length) paths.push(points.splice(0));
        return;
      }
      points.push(`${(x(index) + slotW / 2).toFixed(1)},${yMs(interval[key]).toFixed(1)}`);
    });
    if (points.length) paths.push(points);
    for (const line of paths) {
      if (line.length === 1) {
        const [cx, cy] = line[0].split(',');
        svg.append(s('circle', { class: `dot ${name}`, cx, cy, r: 2.5 }));
      } else {
        svg.append(s('polyline', { class: `line ${name}`, points: line.join(' ') }));
      }
    }
  }
  return svg;
}

function table(traffic) {
  const rows = traffic.intervals.filter((i) => i.requests > 0).reverse();
  const time = new Intl.DateTimeFormat(language(), { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return h('details', { class: 'chart-table' }, h('summary', {}, t('trafficTable')),
    h('div', { class: 'scroll' }, h('table', { class: 'table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('time')), h('th', { scope: 'col' }, t('perSecond')),
        h('th', { scope: 'col' }, 'p50'), h('th', { scope: 'col' }, 'p95'), h('th', { scope: 'col' }, 'p99'),
        h('th', { scope: 'col' }, t('errors')))),
      h('tbody', {}, rows.map((i) => h('tr', {}, h('td', {}, time.format(new Date(i.start))),
        h('td', {}, rate(i.requestsPerSecond)), h('td', {}, ms(i.p50Ms)), h('td', {}, ms(i.p95Ms)),
        h('td', {}, ms(i.p99Ms)), h('td', {}, String(i.errors))))))));
}

/** The chart's panel; `update(traffic)` redraws it with an answer of GET /api/admin/traffic, `fail(node)` shows
 * an error in its place. */
export function trafficPanel() {
  const box = h('div', { class: 'chart-box', id: 'traffic-chart' });
  const caption = h('figcaption', { id: 'traffic-caption', 'aria-live': 'polite' }, t('loading'));
  const legend = h('ul', { class: 'legend', 'aria-hidden': 'true' },
    h('li', {}, h('span', { class: 'swatch bar' }), t('perSecond')),
    h('li', {}, h('span', { class: 'swatch p50' }), 'p50'),
    h('li', {}, h('span', { class: 'swatch p99' }), 'p99'));
  const tableBox = h('div', {});
  const figure = h('figure', { class: 'traffic', id: 'traffic' }, caption, box, legend, tableBox);
  let last = null;
  const render = () => {
    if (!last) return;
    // Metrics off, or nothing answered yet: a sentence instead of the chart.
    const blank = !last.metricsEnabled ? ['off', 'metricsOff']
      : !last.summary || last.summary.requests === 0 ? ['empty', 'noTraffic'] : null;
    if (blank) {
      figure.dataset.state = blank[0];
      caption.textContent = t(blank[1]);
      box.replaceChildren();
      legend.hidden = true;
      tableBox.replaceChildren();
      return;
    }
    figure.dataset.state = 'chart';
    legend.hidden = false;
    caption.textContent = summarize(last);
    box.replaceChildren(draw(box, last));
    tableBox.replaceChildren(table(last));
  };
  // The table keeps its open state across updates.
  const update = (traffic) => {
    const open = tableBox.querySelector('details')?.open;
    last = traffic;
    render();
    if (open) tableBox.querySelector('details')?.setAttribute('open', '');
  };
  let width = 0;
  const resize = new ResizeObserver(() => {
    if (box.clientWidth !== width) { width = box.clientWidth; render(); }
  });
  resize.observe(box);
  const fail = (node) => {
    figure.dataset.state = 'error';
    caption.replaceChildren(node);
  };
  return { node: figure, update, fail, stop: () => resize.disconnect() };
}
