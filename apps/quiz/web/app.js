// 7位を当てろ！ — the web app: the list, "which is 7th?", the ranking, scores and the leaderboard, authoring for
// administrators. Plain ES module on kura.js (served by Kura at /sdk/kura.js); its own files by relative URL, so it
// works wherever it is mounted (/quiz/, /).
import {
  initializeApp, getAuth, getDatabase, onAuthStateChanged, signInWithEmailAndPassword,
  createUserWithEmailAndPassword, signOut, updateProfile, collection, doc, getDoc, getDocs, setDoc, updateDoc,
  writeBatch, increment, query, orderBy, limit,
} from '/sdk/kura.js';
import { STRINGS, initialLanguage, translator } from './strings.js';
import {
  choiceOrder, randomSeed, isCorrect, points, tally, formatNumber, rankedEntries, validateQuiz, ANSWER_RANK,
} from './logic.js';

// Receipts of queued writes live under the player's own scores, so the app's rules section covers them.
const app = initializeApp({ persistence: 'indexeddb', writeReceipts: 'quizScores/{uid}/_kura_receipts' });
const auth = getAuth(app);
const db = getDatabase(app);

const ANON_KEY = 'quiz.anonymousAnswers';
const main = document.getElementById('main');
const status = document.getElementById('status');

let lang = initialLanguage(localStorage, navigator.languages || [navigator.language]);
let t = translator(lang);
let user = auth.currentUser;
let isAdmin = false;
let quizzes = null;           // [{id, data}] sorted by numeric id, once loaded
let quizzesFromCache = false;
let myAnswers = {};           // quizId → {pick, correct}: the account's (signed in) or this device's
let play = null;              // the quiz being played: {id, order, pick}
let renderToken = 0;

// ---------- small helpers ----------

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
  // A fresh text node each time, so screen readers announce a repeated message too.
  setTimeout(() => { status.textContent = message; }, 30);
  clearTimeout(announce.timer);
  announce.timer = setTimeout(() => { status.textContent = ''; }, 6000);
}

function errorSentence(error) {
  const code = error && error.code;
  switch (code) {
    case 'auth/email-already-in-use': return t('errEmailInUse');
    case 'auth/invalid-email': return t('errInvalidEmail');
    case 'auth/weak-password': case 'auth/missing-password': return t('errWeakPassword');
    case 'auth/invalid-credential': case 'auth/user-not-found': case 'auth/user-disabled': return t('errCredentials');
    case 'auth/too-many-requests': case 'resource-exhausted': return t('errTooMany');
    case 'auth/network-request-failed': case 'unavailable': case 'deadline-exceeded': return t('errNetwork');
    case 'permission-denied': return t('errDenied');
    default: return t('errUnknown');
  }
}

/** A quiz's text in the current language (English fields when present). */
function local(quiz, field) {
  if (lang === 'en' && quiz[field + 'En']) return quiz[field + 'En'];
  return quiz[field] ?? '';
}
function entryName(entry) { return lang === 'en' && entry.nameEn ? entry.nameEn : entry.name; }

function focusHeading() {
  const heading = main.querySelector('h1');
  if (heading) { heading.setAttribute('tabindex', '-1'); heading.focus({ preventScroll: false }); }
}

let focusOnDraw = false;
function setView(...nodes) {
  main.replaceChildren(...nodes.filter(Boolean));
  main.removeAttribute('aria-busy');
  if (focusOnDraw) { focusOnDraw = false; focusHeading(); }
}

function loadingView() {
  main.setAttribute('aria-busy', 'true');
  main.replaceChildren(h('p', { class: 'visually-hidden', text: t('loading') }),
    h('div', { class: 'skeleton', 'aria-hidden': 'true' }, ...Array.from({ length: 6 }, () => h('div'))));
}

const SVG = 'http://www.w3.org/2000/svg';

/** A small drawn mark (no emoji: they depend on the system's fonts): 'right' ○, 'wrong' ×, 'note' !. */
function mark(kind) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', 'mark mark-' + kind);
  svg.setAttribute('aria-hidden', 'true');
  const shapes = {
    right: [['circle', { cx: 12, cy: 12, r: 8.5 }]],
    wrong: [['path', { d: 'M5.5 5.5 18.5 18.5M18.5 5.5 5.5 18.5' }]],
    note: [['circle', { cx: 12, cy: 12, r: 9.5 }], ['path', { d: 'M12 6.5v7' }], ['path', { d: 'M12 16.8v.7' }]],
  };
  for (const [tag, attributes] of shapes[kind]) {
    const shape = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes)) shape.setAttribute(key, value);
    svg.append(shape);
  }
  return svg;
}

function stateView(message, action) {
  return h('section', { class: 'state' }, h('span', { class: 'state-icon' }, mark('note')),
    h('p', { text: message }), action || null);
}

// ---------- data ----------

async function loadQuizzes() {
  const snapshot = await getDocs(collection(db, 'quizzes'));
  quizzes = snapshot.docs.map((d) => ({ id: d.id, data: d.data() }))
    .sort((a, b) => (Number(a.id) - Number(b.id)) || a.id.localeCompare(b.id));
  quizzesFromCache = snapshot.metadata.fromCache;
  return quizzes;
}

function anonymousAnswers() {
  try { return JSON.parse(localStorage.getItem(ANON_KEY) || '[]'); } catch { return []; }
}

async function loadMyAnswers() {
  if (!user) {
    myAnswers = {};
    for (const answer of anonymousAnswers()) if (!(answer.quiz in myAnswers)) myAnswers[answer.quiz] = answer;
    return;
  }
  try {
    const snapshot = await getDocs(collection(db, 'quizScores', user.uid, 'answers'));
    myAnswers = Object.fromEntries(snapshot.docs.map((d) => [d.id, d.data()]));
  } catch { /* offline with nothing cached: badges stay off */ }
}

function playerName() {
  return (user.displayName || (user.email || '').split('@')[0] || 'player').slice(0, 40);
}

/** Records an answer: the play count (+1, an `increment`), and the score once per quiz. → a strings key. */
async function recordAnswer(quizId, pick) {
  updateDoc(doc(db, 'quizzes', quizId), { plays: increment(1) }).catch(() => {});
  if (quizzes) {
    const quiz = quizzes.find((q) => q.id === quizId);
    if (quiz) quiz.data.plays = (quiz.data.plays || 0) + 1;
  }
  const correct = isCorrect(pick);
  const at = new Date().toISOString();
  if (!user) {
    const answers = anonymousAnswers();
    const replay = answers.some((a) => a.quiz === quizId);
    if (!replay) {
      answers.push({ quiz: quizId, pick, correct, at });
      localStorage.setItem(ANON_KEY, JSON.stringify(answers));
      myAnswers[quizId] = { pick, correct };
    }
    return replay ? 'scoreReplay' : 'scoreSavedAnonymous';
  }
  const answerRef = doc(db, 'quizScores', user.uid, 'answers', quizId);
  try {
    if (myAnswers[quizId] || (await getDoc(answerRef)).exists()) return 'scoreReplay';
  } catch { /* unknown: try the write, which the rules refuse for a replay */ }
  const batch = writeBatch(db);
  batch.set(answerRef, { pick, correct, at });
  batch.set(doc(db, 'quizScores', user.uid),
    { name: playerName(), played: increment(1), correct: increment(points(pick)), updatedAt: at }, { merge: true });
  try {
    await batch.commit();
    myAnswers[quizId] = { pick, correct };
    return 'scoreSaved';
  } catch (error) {
    return error.code === 'permission-denied' ? 'scoreReplay' : 'scoreNotSaved';
  }
}

/** After a sign-in: the answers played anonymously on this device join the account (those it has not answered). */
async function uploadAnonymousAnswers() {
  const pending = anonymousAnswers();
  if (!user || !pending.length) return 0;
  const fresh = [];
  for (const answer of pending) {
    if (fresh.some((a) => a.quiz === answer.quiz)) continue;
    const existing = await getDoc(doc(db, 'quizScores', user.uid, 'answers', answer.quiz));
    if (!existing.exists()) fresh.push(answer);
  }
  if (fresh.length) {
    const totals = tally(fresh.map((a) => ({ quiz: a.quiz, pick: a.pick })));
    for (let start = 0; start < fresh.length; start += 50) {
      const chunk = fresh.slice(start, start + 50);
      const part = tally(chunk);
      const batch = writeBatch(db);
      for (const answer of chunk) {
        batch.set(doc(db, 'quizScores', user.uid, 'answers', answer.quiz),
          { pick: answer.pick, correct: isCorrect(answer.pick), at: answer.at });
      }
      batch.set(doc(db, 'quizScores', user.uid), {
        name: playerName(), played: increment(part.played), correct: increment(part.correct),
        updatedAt: new Date().toISOString(),
      }, { merge: true });
      await batch.commit();
    }
    void totals;
  }
  localStorage.removeItem(ANON_KEY);
  return fresh.length;
}

// ---------- views ----------

async function showList() {
  const token = ++renderToken;
  if (!quizzes) loadingView();
  try {
    await Promise.all([loadQuizzes(), loadMyAnswers()]);
  } catch (error) {
    if (token !== renderToken) return;
    setView(stateView(t('listError'), h('button', { class: 'button primary', type: 'button', onclick: () => route(), text: t('retry') })));
    return;
  }
  if (token !== renderToken) return;
  const head = h('div', { class: 'list-head' },
    h('div', {}, h('h1', { text: t('listTitle') }), h('p', { class: 'lead', text: t('tagline') })),
    isAdmin ? h('a', { class: 'button primary', href: '#/new', text: t('newQuiz') }) : null);
  if (!quizzes.length) {
    setView(head, stateView(t('listEmpty')));
    return;
  }
  const cards = h('ul', { class: 'cards' }, quizzes.map(({ id, data }) => {
    const answer = myAnswers[id];
    return h('li', { class: 'card' },
      h('span', { class: 'card-number', text: `No. ${id}` }),
      h('a', { class: 'play', href: `#/q/${encodeURIComponent(id)}`, text: local(data, 'title') }),
      h('div', { class: 'card-meta' },
        h('span', { text: t((data.plays || 0) === 1 ? 'playsOne' : 'plays', { n: formatNumber(data.plays || 0) }) }),
        answer ? h('span', { class: 'badge ' + (answer.correct ? 'right' : 'wrong'),
          text: answer.correct ? t('answeredRight') : t('answeredWrong') }) : null,
        isAdmin ? h('a', { class: 'edit', href: `#/edit/${encodeURIComponent(id)}`, text: t('edit'),
          'aria-label': `${t('edit')}: ${local(data, 'title')}` }) : null));
  }));
  setView(head, quizzesFromCache ? h('p', { class: 'note', text: t('offlineNote') }) : null, cards);
}

async function findQuiz(id) {
  if (quizzes) {
    const known = quizzes.find((q) => q.id === id);
    if (known) return known;
  }
  const snapshot = await getDoc(doc(db, 'quizzes', id));
  return snapshot.exists() ? { id, data: snapshot.data() } : null;
}

function nextQuizId(id) {
  if (!quizzes || !quizzes.length) return null;
  const unanswered = quizzes.filter((q) => q.id !== id && !myAnswers[q.id]);
  const pool = unanswered.length ? unanswered : quizzes.filter((q) => q.id !== id);
  if (!pool.length) return null;
  const index = quizzes.findIndex((q) => q.id === id);
  return (pool.find((q) => quizzes.indexOf(q) > index) || pool[0]).id;
}

async function showQuiz(id) {
  const token = ++renderToken;
  loadingView();
  let quiz;
  try {
    if (!quizzes) await loadQuizzes().catch(() => null);
    quiz = await findQuiz(id);
  } catch {
    quiz = undefined;
  }
  if (token !== renderToken) return;
  if (!quiz) {
    setView(stateView(quiz === null ? t('notFound') : t('listError'),
      h('a', { class: 'button primary', href: '#/', text: t('backToList') })));
    return;
  }
  if (!play || play.id !== id) play = { id, order: choiceOrder(randomSeed()), pick: null };
  renderPlay(quiz);
}

function renderPlay({ id, data }) {
  const entries = rankedEntries(data);
  const byRank = Object.fromEntries(entries.map((e) => [e.rank, e]));
  const answered = play.pick !== null;
  const questionCard = h('section', { class: 'panel', 'aria-labelledby': 'question' },
    h('p', { class: 'quiz-title', text: local(data, 'title') }),
    h('h1', { class: 'question', id: 'question', text: t('question') }),
    h('p', { class: 'lead', id: 'choose-hint', text: t('chooseHint') }),
    h('ul', { class: 'choices', 'aria-describedby': 'choose-hint' }, play.order.map((rank) => {
      const entry = byRank[rank];
      let className = 'choice';
      if (answered && rank === ANSWER_RANK) className += ' is-answer';
      if (answered && rank === play.pick && rank !== ANSWER_RANK) className += ' is-wrong-pick';
      return h('li', {}, h('button', {
        type: 'button', class: className, 'data-rank': rank, disabled: answered,
        'aria-pressed': answered ? String(rank === play.pick) : null,
        onclick: () => choose(id, data, rank),
      }, entry ? entryName(entry) : '—'));
    })),
    answered ? verdict(data, byRank) : null);
  if (!answered) {
    setView(h('div', { class: 'play-grid' }, questionCard));
    return;
  }
  const table = h('table', { class: 'ranking' },
    h('caption', { text: t('rankingTitle') }),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: t('colRank') }), h('th', { scope: 'col', text: t('colName') }),
      h('th', { scope: 'col', class: 'value', text: t('colValue') }))),
    h('tbody', {}, entries.map((entry) => {
      const classes = [entry.rank === ANSWER_RANK ? 'is-answer' : '', entry.rank === play.pick ? 'is-pick' : '']
        .filter(Boolean).join(' ');
      return h('tr', { class: classes || null, 'data-rank': entry.rank },
        h('th', { scope: 'row', text: t('rankLabel', { rank: entry.rank }) }),
        h('td', {}, entryName(entry),
          entry.rank === play.pick ? h('span', { class: 'tag', text: t('yourPick') }) : null,
          entry.rank === ANSWER_RANK ? h('span', { class: 'tag answer', text: t('answerMark') }) : null),
        h('td', { class: 'value' }, h('span', { class: 'num', text: formatNumber(entry.value) }),
          local(data, 'unit') ? ' ' : null,
          local(data, 'unit') ? h('span', { class: 'unit', text: local(data, 'unit') }) : null));
    })));
  const next = nextQuizId(id);
  const rankingCard = h('section', { class: 'panel', 'aria-label': t('rankingTitle') }, table,
    h('p', { class: 'memo', text: local(data, 'memo') }),
    h('div', { class: 'actions' },
      next ? h('a', { class: 'button primary', href: `#/q/${encodeURIComponent(next)}`, id: 'next-quiz', text: t('nextQuiz') }) : null,
      h('a', { class: 'button', href: '#/', text: t('backToList') })),
    shareBox(id, data));
  setView(h('div', { class: 'play-grid answered' }, questionCard, rankingCard));
}

function verdict(data, byRank) {
  const right = isCorrect(play.pick);
  const answer = byRank[ANSWER_RANK];
  const pick = byRank[play.pick];
  return h('div', { class: 'verdict ' + (right ? 'right' : 'wrong'), id: 'verdict' },
    h('strong', {}, mark(right ? 'right' : 'wrong'), right ? t('correct') : t('wrong')),
    h('p', {
      text: right ? t('correctDetail', { name: entryName(answer) })
        : t('wrongDetail', { pick: pick ? entryName(pick) : '', rank: play.pick, answer: answer ? entryName(answer) : '' }),
    }));
}

async function choose(id, data, rank) {
  if (play.pick !== null) return;
  play.pick = rank;
  renderPlay({ id, data });
  const right = isCorrect(rank);
  const byRank = Object.fromEntries(rankedEntries(data).map((e) => [e.rank, e]));
  const detail = right ? t('correctDetail', { name: entryName(byRank[ANSWER_RANK]) })
    : t('wrongDetail', { pick: entryName(byRank[rank]), rank, answer: entryName(byRank[ANSWER_RANK]) });
  announce(`${right ? t('correct') : t('wrong')} ${detail}`);
  const verdictElement = document.getElementById('verdict');
  if (verdictElement) { verdictElement.setAttribute('tabindex', '-1'); verdictElement.focus(); }
  const saved = await recordAnswer(id, rank);
  setTimeout(() => announce(t(saved)), 1500);
}

function shareBox(id, data) {
  const url = new URL(location.href);
  url.hash = `#/q/${encodeURIComponent(id)}`;
  const link = url.toString();
  const text = (isCorrect(play.pick) ? t('shareTextRight', { title: local(data, 'title') })
    : t('shareTextWrong', { title: local(data, 'title') }));
  const intent = 'https://twitter.com/intent/tweet?text=' + encodeURIComponent(`${text} ${link}`);
  const box = h('div', { class: 'share-box' });
  if (navigator.share) {
    box.append(h('div', { class: 'actions' }, h('button', {
      type: 'button', class: 'button', id: 'share',
      onclick: () => navigator.share({ title: t('appName'), text, url: link }).catch(() => {}),
      text: t('share'),
    })));
    return box;
  }
  const input = h('input', { type: 'url', readonly: true, value: link, id: 'share-link', 'aria-label': t('shareLinkLabel') });
  box.append(h('div', { class: 'actions' },
    h('button', { type: 'button', class: 'button', id: 'copy-link', onclick: () => copyLink(link, input), text: t('copyLink') }),
    h('a', { class: 'button', id: 'post-x', href: intent, target: '_blank', rel: 'noopener', text: t('postToX') })),
  h('label', { class: 'visually-hidden', for: 'share-link', text: t('shareLinkLabel') }), input);
  return box;
}

async function copyLink(link, input) {
  try {
    await navigator.clipboard.writeText(link);
    announce(t('linkCopied'));
    return;
  } catch { /* no clipboard permission: the selection way */ }
  input.focus();
  input.select();
  let copied = false;
  try { copied = document.execCommand('copy'); } catch { copied = false; }
  announce(copied ? t('linkCopied') : t('linkCopyFailed'));
}

async function showLeaderboard() {
  const token = ++renderToken;
  loadingView();
  let rows;
  try {
    const snapshot = await getDocs(query(collection(db, 'quizScores'), orderBy('correct', 'desc'), limit(50)));
    rows = snapshot.docs.map((d) => ({ uid: d.id, ...d.data() }))
      .sort((a, b) => (b.correct - a.correct) || (a.played - b.played) || a.name.localeCompare(b.name));
  } catch {
    if (token !== renderToken) return;
    setView(h('h1', { text: t('leaderboardTitle') }), stateView(t('leaderboardError'),
      h('button', { class: 'button primary', type: 'button', onclick: () => route(), text: t('retry') })));
    return;
  }
  if (token !== renderToken) return;
  const deviceScore = !user ? tally(anonymousAnswers()) : null;
  const intro = h('p', { class: 'lead', text: t('leaderboardIntro') });
  const mine = deviceScore && deviceScore.played ? h('p', { class: 'note', text: t('yourLocalScore', deviceScore) }) : null;
  if (!rows.length) {
    setView(h('h1', { text: t('leaderboardTitle') }), intro, mine, stateView(t('leaderboardEmpty')));
    return;
  }
  let position = 0;
  let previous = null;
  const table = h('table', { class: 'board' },
    h('caption', { class: 'visually-hidden', text: t('leaderboardTitle') }),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: t('colRank') }), h('th', { scope: 'col', text: t('colPlayer') }),
      h('th', { scope: 'col', class: 'num', text: t('colCorrect') }), h('th', { scope: 'col', class: 'num', text: t('colPlayed') }))),
    h('tbody', {}, rows.map((row, index) => {
      if (!previous || previous.correct !== row.correct || previous.played !== row.played) position = index + 1;
      previous = row;
      const me = user && row.uid === user.uid;
      return h('tr', { class: me ? 'me' : null },
        h('td', { text: t('rankLabel', { rank: position }) }),
        h('th', { scope: 'row', text: row.name + (me ? t('you') : '') }),
        h('td', { class: 'num', text: row.correct }), h('td', { class: 'num', text: row.played }));
    })));
  setView(h('h1', { text: t('leaderboardTitle') }), intro, mine, h('div', { class: 'panel' }, table));
}

function showAccount(mode = 'signin') {
  ++renderToken;
  if (user) {
    setView(h('h1', { text: t('navSignedIn') }), h('section', { class: 'panel' },
      h('p', {}, t('signedInAs', { email: user.email }), ' ', isAdmin ? h('span', { class: 'badge admin', text: t('adminBadge') }) : null),
      h('div', { class: 'actions' }, h('button', {
        type: 'button', class: 'button', id: 'sign-out', text: t('signOut'),
        onclick: async () => { await signOut(auth); announce(t('signOut')); location.hash = '#/'; },
      }))));
    return;
  }
  const message = h('p', { class: 'error', id: 'form-error', role: 'alert' });
  const email = h('input', { id: 'email', type: 'email', autocomplete: 'email', required: true });
  const password = h('input', {
    id: 'password', type: 'password', required: true, minlength: 6, 'aria-describedby': 'password-hint',
    autocomplete: mode === 'signup' ? 'new-password' : 'current-password',
  });
  const name = h('input', { id: 'display-name', type: 'text', maxlength: 40, autocomplete: 'nickname' });
  const submit = h('button', { type: 'submit', class: 'button primary', id: 'submit', text: mode === 'signup' ? t('signUp') : t('signIn') });
  const form = h('form', {
    class: 'form', novalidate: true,
    onsubmit: async (event) => {
      event.preventDefault();
      message.textContent = '';
      submit.disabled = true;
      submit.textContent = t('working');
      try {
        if (mode === 'signup') {
          if (password.value.length < 6) throw { code: 'auth/weak-password' };
          const result = await createUserWithEmailAndPassword(auth, email.value.trim(), password.value);
          if (name.value.trim()) await updateProfile(result.user, { displayName: name.value.trim() });
        } else {
          await signInWithEmailAndPassword(auth, email.value.trim(), password.value);
        }
        user = auth.currentUser;
        const moved = await uploadAnonymousAnswers().catch(() => 0);
        announce(moved ? t('uploaded', { n: moved }) : t('signedIn'));
        location.hash = '#/';
      } catch (error) {
        message.textContent = errorSentence(error);
        submit.disabled = false;
        submit.textContent = mode === 'signup' ? t('signUp') : t('signIn');
      }
    },
  },
  h('div', { class: 'field' }, h('label', { for: 'email', text: t('email') }), email),
  h('div', { class: 'field' }, h('label', { for: 'password', text: t('password') }),
    h('span', { class: 'hint', id: 'password-hint', text: t('passwordHint') }), password),
  mode === 'signup' ? h('div', { class: 'field' }, h('label', { for: 'display-name', text: t('displayName') }), name) : null,
  message, h('div', {}, submit));
  const tabs = h('div', { class: 'tabs', role: 'group', 'aria-label': t('accountTitle') },
    h('button', { type: 'button', 'aria-pressed': String(mode === 'signin'), onclick: () => showAccount('signin'), text: t('haveAccount') }),
    h('button', { type: 'button', 'aria-pressed': String(mode === 'signup'), id: 'to-signup', onclick: () => showAccount('signup'), text: t('noAccount') }));
  const localScore = tally(anonymousAnswers());
  setView(h('h1', { text: t('accountTitle') }), h('section', { class: 'panel' }, tabs, form),
    localScore.played ? h('p', { class: 'note', style: 'margin-top: 24px', text: t('yourLocalScore', localScore) }) : null);
}

async function showEditor(id) {
  const token = ++renderToken;
  if (!isAdmin) {
    setView(h('h1', { text: id ? t('editTitle') : t('createTitle') }), stateView(t('adminOnly'),
      h('a', { class: 'button primary', href: user ? '#/' : '#/account', text: user ? t('backToList') : t('navAccount') })));
    return;
  }
  loadingView();
  let existing = null;
  try {
    if (!quizzes) await loadQuizzes();
    if (id) existing = await findQuiz(id);
  } catch { /* shown below */ }
  if (token !== renderToken) return;
  if (id && !existing) {
    setView(stateView(t('notFound'), h('a', { class: 'button primary', href: '#/', text: t('backToList') })));
    return;
  }
  const data = existing ? existing.data : { title: '', unit: '', memo: '', entries: [] };
  const entries = rankedEntries(data);
  const field = (key, label, value, attributes = {}) => h('div', { class: 'field' },
    h('label', { for: key, text: label }),
    attributes.multiline ? h('textarea', { id: key, text: value || '' })
      : h('input', { id: key, type: 'text', value: value || '', ...attributes }));
  const rows = Array.from({ length: 10 }, (_, index) => {
    const rank = index + 1;
    const entry = entries.find((e) => e.rank === rank) || {};
    return h('div', { class: 'entry-row' },
      h('span', { class: 'rank', 'aria-hidden': 'true', text: t('rankLabel', { rank }) }),
      h('input', { id: `name-${rank}`, type: 'text', value: entry.name || '', 'aria-label': t('fieldEntryName', { rank }) }),
      h('input', { id: `value-${rank}`, type: 'text', inputmode: 'decimal', value: entry.value ?? '', 'aria-label': t('fieldEntryValue', { rank }) }));
  });
  const problems = h('ul', { class: 'problems', id: 'problems', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'button primary', id: 'save', text: t('save') });
  const form = h('form', {
    class: 'form wide', novalidate: true,
    onsubmit: async (event) => {
      event.preventDefault();
      const value = (key) => form.querySelector('#' + key).value;
      const quiz = {
        title: value('title').trim(), unit: value('unit').trim(), memo: value('memo').trim(),
        entries: Array.from({ length: 10 }, (_, index) => {
          const rank = index + 1;
          const raw = value(`value-${rank}`).replace(/[,\s]/g, '');
          const old = entries.find((e) => e.rank === rank);
          const entry = { rank, name: value(`name-${rank}`).trim(), value: raw === '' ? NaN : Number(raw) };
          if (old && old.nameEn && old.name === entry.name) entry.nameEn = old.nameEn;
          return entry;
        }),
      };
      const titleEn = value('titleEn').trim();
      if (titleEn) quiz.titleEn = titleEn;
      for (const key of ['unitEn', 'memoEn']) if (existing && existing.data[key]) quiz[key] = existing.data[key];
      const found = validateQuiz(quiz);
      problems.replaceChildren(...found.map((key) => h('li', { text: t(key) })));
      if (found.length) return;
      submit.disabled = true;
      submit.textContent = t('working');
      const quizId = id || String(Math.max(0, ...quizzes.map((q) => Number(q.id) || 0)) + 1);
      quiz.plays = existing ? existing.data.plays || 0 : 0;
      if (existing && existing.data.updatedAt !== undefined) quiz.updatedAt = new Date().toISOString();
      try {
        await setDoc(doc(db, 'quizzes', quizId), quiz);
        quizzes = null;
        announce(t('saved'));
        location.hash = `#/q/${encodeURIComponent(quizId)}`;
      } catch (error) {
        problems.replaceChildren(h('li', { text: errorSentence(error) }));
        submit.disabled = false;
        submit.textContent = t('save');
      }
    },
  },
  h('div', { class: 'two' }, field('title', t('fieldTitle'), data.title, { maxlength: 100, required: true }),
    field('titleEn', t('fieldTitleEn'), data.titleEn, { maxlength: 100 })),
  h('div', { class: 'two' }, field('unit', t('fieldUnit'), data.unit, { maxlength: 20 }),
    field('memo', t('fieldMemo'), data.memo, { multiline: true })),
  h('fieldset', { class: 'entries', style: 'border:0;padding:0;margin:0' },
    h('legend', { class: 'visually-hidden', text: t('rankingTitle') }),
    h('div', { class: 'entry-row entry-head', 'aria-hidden': 'true' }, h('span', { class: 'rank', text: t('colRank') }),
      h('span', { text: t('colName') }), h('span', { text: t('colValue') })), rows),
  problems,
  h('div', { class: 'actions' }, submit, h('a', { class: 'button', href: id ? `#/q/${encodeURIComponent(id)}` : '#/', text: t('cancel') })));
  setView(h('h1', { text: id ? t('editTitle') : t('createTitle') }), h('section', { class: 'panel' }, form));
}

// ---------- routing, language, account ----------

function route() {
  const path = location.hash.replace(/^#/, '') || '/';
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  let nav = 'list';
  if (parts[0] === 'q' && parts[1]) { if (!play || play.id !== parts[1]) play = null; nav = ''; showQuiz(parts[1]); }
  else if (parts[0] === 'leaderboard') { nav = 'leaderboard'; showLeaderboard(); }
  else if (parts[0] === 'account') { nav = 'account'; showAccount(parts[1] === 'signup' ? 'signup' : 'signin'); }
  else if (parts[0] === 'edit' && parts[1]) { nav = ''; showEditor(parts[1]); }
  else if (parts[0] === 'new') { nav = ''; showEditor(null); }
  else { play = null; showList(); }
  for (const link of document.querySelectorAll('[data-nav]')) {
    if (link.dataset.nav === nav) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  return nav;
}

function applyLanguage() {
  t = translator(lang);
  document.documentElement.lang = lang;
  document.title = t('appName');
  for (const element of document.querySelectorAll('[data-text]')) element.textContent = t(element.dataset.text);
  document.querySelector('.brand').setAttribute('aria-label', t('appName'));
  document.querySelector('.nav').setAttribute('aria-label', lang === 'ja' ? 'メイン' : 'Main');
  const account = document.getElementById('account-link');
  account.textContent = user ? t('navSignedIn') : t('navAccount');
  const button = document.getElementById('lang-switch');
  button.textContent = t('switchLanguage');
  button.setAttribute('lang', lang === 'ja' ? 'en' : 'ja');
  button.setAttribute('aria-label', t('switchLanguageLabel'));
}

document.getElementById('lang-switch').addEventListener('click', () => {
  lang = lang === 'ja' ? 'en' : 'ja';
  localStorage.setItem('quiz.lang', lang);
  status.textContent = '';
  applyLanguage();
  if (play && play.pick !== null) {
    const quiz = quizzes && quizzes.find((q) => q.id === play.id);
    if (quiz) { renderPlay(quiz); return; }
  }
  route();
});

let lastRoute = null;
window.addEventListener('hashchange', () => {
  // Move focus to the new screen's heading once it is drawn, as a page load would.
  focusOnDraw = true;
  route();
  lastRoute = location.hash;
});

let firstAuth = true;
onAuthStateChanged(auth, async (next) => {
  const changed = (next && next.uid) !== (user && user.uid);
  user = next;
  isAdmin = false;
  if (user) {
    try { await user.reload(); } catch { /* offline: the claims as last known */ }
    isAdmin = user.customClaims && user.customClaims.admin === true;
  }
  applyLanguage();
  if (firstAuth || changed) {
    firstAuth = false;
    quizzes = null;
    if (lastRoute === null || !(play && play.pick !== null)) route();
  }
});

applyLanguage();
void STRINGS;

if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('sw.js').catch(() => { /* the app works without it, online */ });
}

// For the tests: the page's state, read by Tests/Browser/suite_quiz.py.
window.quizApp = { get lang() { return lang; }, get isAdmin() { return isAdmin; }, get user() { return user && user.uid; } };
