// Page-side step for suite_types.py.

export function exportNames(t) {
  return Object.keys(t.kura);
}
