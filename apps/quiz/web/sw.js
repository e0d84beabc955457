// The quiz's service worker: the app shell (its own files and kura.js with the modules it imports) is cached at
// install, and every GET outside /api/ is answered from the network first, from the cache when offline. Data is
// not cached here: kura.js persistence (IndexedDB) answers for the quizzes already seen.
const CACHE = 'quiz-shell-v1';
const SHELL = ['./', 'index.html', 'app.js', 'logic.js', 'strings.js', 'styles.css', 'icon.svg'];
const SDK_ENTRY = '/sdk/kura.js';

/** kura.js and every module it imports (relative `from './x.js'`), found by reading them. */
async function sdkFiles(cache) {
  const seen = new Set();
  const queue = [new URL(SDK_ENTRY, self.location.origin).href];
  while (queue.length) {
    const url = queue.shift();
    if (seen.has(url)) continue;
    seen.add(url);
    const response = await fetch(url, { cache: 'no-cache' });
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    await cache.put(url, response.clone());
    const text = await response.text();
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      queue.push(new URL(match[1], url).href);
    }
  }
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(SHELL.map((path) => new Request(path, { cache: 'no-cache' })));
    await sdkFiles(cache);
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key !== CACHE) await caches.delete(key);
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || url.pathname.startsWith('/api/')) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const response = await fetch(request);
      if (response.ok) await cache.put(request, response.clone());
      return response;
    } catch (error) {
      const cached = await cache.match(request, { ignoreSearch: true });
      if (cached) return cached;
      if (request.mode === 'navigate') {
        const shell = await cache.match(new URL('index.html', self.registration.scope).href);
        if (shell) return shell;
      }
      throw error;
    }
  })());
});
