// The quiz's rules, shared by the page and its tests (apps/quiz/cases.json holds the cases the Swift client's
// KuraQuiz runs too, so the two cannot drift). No DOM here.

/** The ranks offered as choices, and the rank to guess. */
export const CHOICE_RANKS = [5, 6, 7, 8];
export const ANSWER_RANK = 7;

/** xorshift32: a tiny PRNG whose steps are the same in JavaScript and Swift (UInt32 arithmetic). */
export function nextRandom(state) {
  let x = state >>> 0;
  x ^= x << 13; x >>>= 0;
  x ^= x >>> 17;
  x ^= x << 5; x >>>= 0;
  return x;
}

/** The ranks 5–8 in the order a play with `seed` shows them: Fisher–Yates driven by xorshift32 (seed 0 → 1). */
export function choiceOrder(seed) {
  const order = [...CHOICE_RANKS];
  let state = (seed >>> 0) || 1;
  for (let i = order.length - 1; i > 0; i--) {
    state = nextRandom(state);
    const j = state % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** A fresh seed for a play. */
export function randomSeed() {
  const buffer = new Uint32Array(1);
  crypto.getRandomValues(buffer);
  return buffer[0] || 1;
}

/** Whether picking `rank` answers the quiz. */
export function isCorrect(rank) { return rank === ANSWER_RANK; }

/** Points for one answer: 1 for the 7th place, 0 otherwise. */
export function points(rank) { return isCorrect(rank) ? 1 : 0; }

/**
 * A player's totals from answers in the order given (`[{quiz, pick}]`): the first answer to each quiz counts,
 * later replays of it do not. → `{played, correct}`.
 */
export function tally(answers) {
  const seen = new Set();
  let played = 0, correct = 0;
  for (const { quiz, pick } of answers) {
    if (seen.has(quiz)) continue;
    seen.add(quiz);
    played += 1;
    correct += points(pick);
  }
  return { played, correct };
}

/** `1234567.5` → `"1,234,567.5"`: the integer part grouped by threes, the fraction as written. */
export function formatNumber(value) {
  const text = String(value);
  const [whole, fraction] = text.split('.');
  const negative = whole.startsWith('-');
  const digits = negative ? whole.slice(1) : whole;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return (negative ? '-' : '') + grouped + (fraction ? '.' + fraction : '');
}

/** A quiz document's entries as a sorted list of 10 `{rank, name, value}`. */
export function rankedEntries(quiz) {
  return [...(quiz.entries || [])].sort((a, b) => a.rank - b.rank);
}

/** The seed app's row (`id, title, 1st…10th, data1…10, memo`, all strings) for a quiz document. */
export function seedRow(id, quiz) {
  const row = { id: String(id), title: quiz.title };
  const ordinals = ['1st', '2nd', '3rd', '4th', '5th', '6th', '7th', '8th', '9th', '10th'];
  for (const entry of rankedEntries(quiz)) {
    if (entry.rank < 1 || entry.rank > 10) continue;
    row[ordinals[entry.rank - 1]] = entry.name;
    row['data' + entry.rank] = formatNumber(entry.value) + (quiz.unit ? ' ' + quiz.unit : '');
  }
  row.memo = quiz.memo || '';
  return row;
}

/** Limits a quiz must keep (the rules in quiz.rules check the same). */
export const LIMITS = { title: 100, name: 60, memo: 500, unit: 20 };

/** Problems with a quiz as an author typed it, as keys of the strings table (empty when it can be saved). */
export function validateQuiz(quiz) {
  const problems = [];
  const title = (quiz.title || '').trim();
  if (!title) problems.push('errTitleEmpty');
  if (title.length > LIMITS.title) problems.push('errTitleLong');
  if ((quiz.memo || '').length > LIMITS.memo) problems.push('errMemoLong');
  if ((quiz.unit || '').length > LIMITS.unit) problems.push('errUnitLong');
  const entries = quiz.entries || [];
  if (entries.length !== 10) problems.push('errTenEntries');
  for (const entry of entries) {
    const name = (entry.name || '').trim();
    if (!name || name.length > LIMITS.name) { problems.push('errEntryName'); break; }
  }
  for (const entry of entries) {
    if (typeof entry.value !== 'number' || !Number.isFinite(entry.value)) { problems.push('errEntryValue'); break; }
  }
  return problems;
}
