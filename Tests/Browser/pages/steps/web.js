// Page-side steps for suite_web.py.

export async function crossOrigin(t) {
  const { kura } = t;
  t.check('the page is on another origin than Kura', location.origin !== new URL(t.url).origin, location.origin);
  const ref = kura.doc(t.db(), 'users', t.auth().currentUser.uid, 'notes', 'n');
  const seen = [];
  const stop = kura.onSnapshot(ref, (snapshot) => seen.push(snapshot.get('v') ?? null));
  await kura.setDoc(ref, { v: 1 });
  t.equal('a cross-origin read', (await kura.getDoc(ref)).get('v'), 1);
  await t.until('the cross-origin stream', () => seen.includes(1));
  stop();
  t.check('the listener stream works cross-origin', true);
}

export async function refused(t) {
  const { kura } = t;
  const error = await kura.createUserWithEmailAndPassword(t.auth(), 'refused@example.com', 'secret1').catch((e) => e);
  t.equal('the browser refuses the answer (no CORS headers): a network failure', error?.code, 'auth/network-request-failed');
  await t.rejects('reads too', kura.getDoc(kura.doc(t.db(), 'public/x')), 'unavailable');
}

export async function sameOrigin(t) {
  const { kura } = t;
  t.equal('the page is served by Kura', location.origin, new URL(t.url).origin);
  const ref = kura.doc(t.db(), 'users', t.auth().currentUser.uid, 'notes', 'hosted');
  await kura.setDoc(ref, { from: 'a hosted page' });
  t.equal('kura.js from /sdk/ works', (await kura.getDoc(ref)).get('from'), 'a hosted page');
}
