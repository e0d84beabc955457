// The notebooks app's rules that its Swift client (Sources/KuraNotes) shares: one normalization function for
// search and for notebook names, the name key that keeps names unique, and the search itself. apps/notes/cases.json
// pins both implementations.

/** The white space the app trims and collapses (the same set as NotesText.whitespace in Swift). */
const SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
const EDGES = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, 'gu');
const RUNS = new RegExp(`[${SPACE}]+`, 'gu');

/** Leading and trailing white space removed. */
export function trimSpace(text) {
  return String(text).replace(EDGES, '');
}

/**
 * The one normalization of the app: compatibility forms (NFKC: full-width Latin and digits, half-width katakana),
 * lower case, katakana as hiragana, and white space trimmed and collapsed to one space. Search compares normalized
 * text, and two notebook names are the same name when they normalize alike.
 */
export function normalize(text) {
  let out = '';
  for (const ch of String(text).normalize('NFKC').toLowerCase()) {
    const code = ch.codePointAt(0);
    if (code >= 0x30a1 && code <= 0x30f6) out += String.fromCodePoint(code - 0x60);
    else if (code === 0x30fd || code === 0x30fe) out += String.fromCodePoint(code - 0x60);
    else out += ch;
  }
  return trimSpace(out.replace(RUNS, ' '));
}

/** The longest notebook name, in Unicode scalars. */
export const NAME_LIMIT = 100;
/** The longest word and explanation, in Unicode scalars. */
export const WORD_LIMIT = 200;
export const EXPLANATION_LIMIT = 2000;

/** What is wrong with a notebook name: 'blank', 'tooLong', or null when it can be used (trimmed). */
export function nameProblem(name) {
  const trimmed = trimSpace(name);
  if (!trimmed) return 'blank';
  if ([...trimmed].length > NAME_LIMIT) return 'tooLong';
  return null;
}

/**
 * The document ID that stands for a name among a user's notebooks (users/{uid}/notebookNames/{key}): the name
 * normalized, with `%` and `/` percent-encoded and a leading `.` or `__` escaped, so that every name is a valid ID.
 */
export function nameKey(name) {
  let key = normalize(name).replace(/%/g, '%25').replace(/\//g, '%2F');
  if (key.startsWith('.')) key = '%2E' + key.slice(1);
  if (key.startsWith('__')) key = '%5F' + key.slice(1);
  return key;
}

/** What is wrong with a word: 'blankWord', 'wordTooLong', 'explanationTooLong', or null. */
export function wordProblem(word, explanation) {
  const trimmed = trimSpace(word);
  if (!trimmed) return 'blankWord';
  if ([...trimmed].length > WORD_LIMIT) return 'wordTooLong';
  if ([...trimSpace(explanation)].length > EXPLANATION_LIMIT) return 'explanationTooLong';
  return null;
}

/**
 * The words that match: in one of `notebookIds` (every notebook when empty), and containing the normalized `text`
 * in the word or its explanation (every word when blank). `words` are `{id, notebook, word, explanation}`; the
 * result keeps their order.
 */
export function search(words, text, notebookIds = []) {
  const needle = normalize(text);
  return words.filter((w) => (!notebookIds.length || notebookIds.includes(w.notebook))
    && (!needle || normalize(w.word).includes(needle) || normalize(w.explanation || '').includes(needle)));
}

/**
 * The notebook a search field's text names, for turning it into a token: the one whose name normalizes like the
 * text, else the only one whose normalized name starts with it; null when none or several do.
 */
export function notebookForToken(notebooks, text) {
  const needle = normalize(text);
  if (!needle) return null;
  const exact = notebooks.find((n) => normalize(n.name) === needle);
  if (exact) return exact;
  const starts = notebooks.filter((n) => normalize(n.name).startsWith(needle));
  return starts.length === 1 ? starts[0] : null;
}

/** Deleting `count` words and their notebook: one commit when they fit (`limit` writes), else how many commits. */
export function deletePlan(count, limit = 500) {
  const writes = count + 2;
  return { atomic: writes <= limit, commits: Math.max(1, Math.ceil(writes / limit)) };
}
