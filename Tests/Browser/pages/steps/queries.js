// Page-side steps for suite_queries.py: or/and filters, inequalities on several fields and aggregations through
// kura.js; with persistence, the cache's local evaluation must give the server's answers.

const ROWS = [
  ['a', { rank: 1, color: 'red', tags: ['x'], size: 10 }],
  ['b', { rank: 2, color: 'blue', tags: ['y'], size: 20 }],
  ['c', { rank: 3, color: 'red', tags: ['x', 'y'], size: 30.5 }],
  ['d', { rank: 4, color: 'green', tags: [], size: 40 }],
  ['e', { rank: 5, color: 'blue', tags: ['z'], note: 'no size', id: 'b' }],
];

function items(t) {
  return t.kura.collection(t.db(), 'users', t.auth().currentUser.uid, 'items');
}

export async function seed(t) {
  const batch = t.kura.writeBatch(t.db());
  for (const [id, data] of ROWS) batch.set(t.kura.doc(items(t), id), data);
  await batch.commit();
}

/** Named queries, each with the IDs the server must answer, in order. */
function cases(kura) {
  const { where, or, and, orderBy, limit } = kura;
  return [
    ['or', [or(where('color', '==', 'green'), where('rank', '==', 1))], ['a', 'd']],
    ['or nested with and', [or(and(where('color', '==', 'red'), where('rank', '==', 3)), where('tags', 'array-contains', 'z'))], ['c', 'e']],
    ['or with an inequality (ordered by it; documents without the field are left out)',
      [or(where('size', '>', 35), where('color', '==', 'blue'))], ['b', 'd']],
    ['or AND-ed with a where', [where('color', '!=', 'green'), or(where('rank', '<', 2), where('rank', '>', 4))], ['e', 'a']],
    ['top-level and', [and(where('color', '==', 'red'), where('rank', '>', 1))], ['c']],
    ['or with in', [or(where('color', 'in', ['green', 'blue']), where('size', '==', 10)), orderBy('rank', 'desc'), limit(3)],
      ['e', 'd', 'b']],
    ['inequalities on two fields', [where('rank', '>', 1), where('size', '<', 40)], ['b', 'c']],
    ['inequality after an orderBy on another field', [where('rank', '>', 1), orderBy('color')], ['b', 'e', 'd', 'c']],
    ['a data field named id (new FieldPath("id"), as in Firebase)', [where(new kura.FieldPath('id'), '==', 'b')], ['e']],
    ['the document ID (documentId())', [where(kura.documentId(), '==', 'b')], ['b']],
  ];
}

export async function compositeQueries(t) {
  const { kura } = t;
  for (const [name, constraints, expected] of cases(kura)) {
    const snapshot = await kura.getDocs(kura.query(items(t), ...constraints));
    t.equal(name, snapshot.docs.map((d) => d.id), expected);
  }
  const composite = kura.or(kura.where('rank', '==', 1));
  t.check('or() is a QueryCompositeFilterConstraint of type or',
    composite instanceof kura.QueryCompositeFilterConstraint && composite.type === 'or');
  let refused = null;
  try { kura.or(kura.orderBy('rank')); } catch (error) { refused = error.code; }
  t.equal('or() takes only filters', refused, 'invalid-argument');
}

export async function aggregates(t) {
  const { kura } = t;
  const { count, sum, average } = kura;
  const all = await kura.getAggregateFromServer(items(t), { n: count(), total: sum('size'), mean: average('rank') });
  t.equal('count, sum (a double among the values), average', all.data(), { n: 5, total: 100.5, mean: 3 });
  t.check('an AggregateQuerySnapshot', all instanceof kura.AggregateQuerySnapshot && all.type === 'AggregateQuerySnapshot');
  const blue = kura.query(items(t), kura.where('color', '==', 'blue'));
  t.equal('sum of integers, average of a missing field', (await kura.getAggregateFromServer(blue, {
    total: sum('rank'), none: average('nothing'), words: sum('color'),
  })).data(), { total: 7, none: null, words: 0 });
  const ored = kura.query(items(t), kura.or(kura.where('color', '==', 'green'), kura.where('tags', 'array-contains', 'x')));
  t.equal('aggregations of an or query', (await kura.getAggregateFromServer(ored, { n: count(), s: sum('rank') })).data(),
    { n: 3, s: 8 });
  t.equal('getCountFromServer of an or query', (await kura.getCountFromServer(ored)).data().count, 3);
  t.equal('limit applies', (await kura.getAggregateFromServer(
    kura.query(items(t), kura.orderBy('rank', 'desc'), kura.limit(2)), { s: sum('rank') })).data(), { s: 9 });
  await t.rejects('more than five aggregations', kura.getAggregateFromServer(items(t), {
    a: count(), b: count(), c: count(), d: count(), e: count(), f: count(),
  }), 'invalid-argument');
  t.check('aggregateFieldEqual', kura.aggregateFieldEqual(sum('x'), sum('x')) && !kura.aggregateFieldEqual(sum('x'), average('x')));
}

/** With persistence: after the documents are cached, the cache answers every case as the server did. */
export async function cacheAgrees(t) {
  const { kura } = t;
  await kura.getDocs(items(t));
  for (const [name, constraints, expected] of cases(kura)) {
    const cached = await kura.getDocsFromCache(kura.query(items(t), ...constraints));
    t.equal(`from the cache: ${name}`, cached.docs.map((d) => d.id), expected);
  }
}
