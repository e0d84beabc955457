// The page side of the browser suite: loads kura.js, runs steps (pages/steps/*.js) on the driver's request and
// reports every check through one object, `window.kuraTest`, which the driver reads after each step.

import * as kura from '/sdk/kura.js';

const params = new URLSearchParams(location.search);
const url = params.get('kura');
const options = JSON.parse(params.get('options') || '{}');
const list = document.getElementById('checks');
document.getElementById('server').textContent = url;

const kuraTest = { ready: false, checks: [], state: {} };
window.kuraTest = kuraTest;
window.kura = kura;

function record(name, ok, detail) {
  kuraTest.checks.push({ name, ok: !!ok, detail: ok ? null : String(detail) });
  const item = document.createElement('li');
  item.className = ok ? 'ok' : 'fail';
  item.textContent = ok ? name : `${name}: ${detail}`;
  list.append(item);
}

/** What a step gets: the SDK, the server's URL, the page's options and state, and the check functions. */
const t = {
  kura, url, options, state: kuraTest.state,
  check: (name, ok, detail = 'false') => record(name, ok, detail),
  equal(name, actual, expected) {
    const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
    record(name, a === e, `got ${a}, expected ${e}`);
  },
  async rejects(name, promise, code) {
    try {
      await promise;
      record(name, false, 'did not fail');
    } catch (error) {
      record(name, error?.code === code, `${error?.code}: ${error?.message}`);
    }
  },
  /** Resolves when `predicate()` is true (polled), or rejects after `ms`. */
  async until(what, predicate, ms = 15000) {
    const deadline = Date.now() + ms;
    while (!(await predicate())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  },
  /** The page's app (made once, with the page's options). */
  app() {
    kuraTest.state.app ??= kura.initializeApp({ url, ...options });
    return kuraTest.state.app;
  },
  auth() {
    return kura.getAuth(t.app());
  },
  db() {
    return kura.getDatabase(t.app());
  },
};

// Every step module is loaded up front, so that steps still run after a test cuts the page's network.
const modules = {};
for (const name of ['auth', 'data', 'realtime', 'offline', 'web', 'units', 'types', 'names']) {
  modules[name] = await import(`./steps/${name}.js`);
}

window.runStep = async (module, step, args) => {
  const steps = modules[module] ?? (await import(`./steps/${module}.js`));
  if (typeof steps[step] !== 'function') throw new Error(`no step ${module}.${step}`);
  return (await steps[step](t, ...args)) ?? null;
};

kuraTest.ready = true;
