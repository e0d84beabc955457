// The to-do rules the web app and kura-todo (Sources/KuraTodo) share; ../cases.json pins both.

/** The longest title, in characters (Unicode scalars), as todo.rules allows. */
export const MAX_TITLE = 500;

/**
 * The title to store for what was typed: white space at both ends removed and runs of white space (line breaks
 * too) made one space. `{title}`, or `{error: 'blank' | 'tooLong'}`.
 */
export function cleanTitle(text) {
  const title = String(text ?? '').replace(/\s+/gu, ' ').trim();
  if (title === '') return { error: 'blank' };
  if ([...title].length > MAX_TITLE) return { error: 'tooLong' };
  return { title };
}

/** `{open, done}`: how many to-dos are left and how many are done. */
export function countTodos(todos) {
  let done = 0;
  for (const todo of todos) if (todo.done === true) done += 1;
  return { open: todos.length - done, done };
}

/**
 * The order of the list: by `createdAt` (RFC 3339 strings compare in time order), then by ID, so every client
 * shows the same order.
 */
export function compareTodos(a, b) {
  const x = a.createdAt ?? '', y = b.createdAt ?? '';
  if (x !== y) return x < y ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
