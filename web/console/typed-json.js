// JSON as Kura stores it: a number written without fraction or exponent is an integer, one with them a double.
// JSON.parse loses that difference (1.0 becomes 1), so the console parses documents itself, keeps each number's
// text, shows each value's type, and writes numbers back exactly as they were written.

/** A parse error with the line and column (1-based) it was found at. */
export class JSONSyntaxError extends Error {
  constructor(message, line, column) {
    super(`line ${line}, column ${column}: ${message}`);
    this.line = line;
    this.column = column;
  }
}

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Parses `text` into nodes: `{type, value}` with type null|boolean|integer|double|string|timestamp|array|map. */
export function parseTyped(text) {
  let i = 0;
  const fail = (message) => {
    const before = text.slice(0, i);
    const line = before.split('\n').length;
    const column = i - before.lastIndexOf('\n');
    throw new JSONSyntaxError(message, line, column);
  };
  const space = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const value = (depth) => {
    if (depth > 64) fail('nesting is too deep');
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries = [];
      const keys = new Set();
      space();
      if (text[i] === '}') { i++; return { type: 'map', value: entries }; }
      for (;;) {
        space();
        if (text[i] !== '"') fail('a field name in double quotes was expected');
        const key = string();
        if (keys.has(key)) fail(`the field "${key}" appears twice`);
        keys.add(key);
        space();
        if (text[i] !== ':') fail('":" was expected after a field name');
        i++;
        entries.push([key, value(depth + 1)]);
        space();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return { type: 'map', value: entries }; }
        fail('"," or "}" was expected');
      }
    }
    if (c === '[') {
      i++;
      const items = [];
      space();
      if (text[i] === ']') { i++; return { type: 'array', value: items }; }
      for (;;) {
        items.push(value(depth + 1));
        space();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return { type: 'array', value: items }; }
        fail('"," or "]" was expected');
      }
    }
    if (c === '"') {
      const s = string();
      return { type: TIME.test(s) ? 'timestamp' : 'string', value: s };
    }
    for (const [word, node] of [['true', { type: 'boolean', value: true }], ['false', { type: 'boolean', value: false }],
      ['null', { type: 'null', value: null }]]) {
      if (text.startsWith(word, i)) { i += word.length; return node; }
    }
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (number) {
      i += number[0].length;
      const isDouble = number[2] !== undefined || number[3] !== undefined;
      if (!isDouble) {
        const big = BigInt(number[0]);
        if (big > 9223372036854775807n || big < -9223372036854775808n) {
          i -= number[0].length;
          fail('an integer must fit in 64 bits (write it with a fraction or exponent for a double)');
        }
      }
      return { type: isDouble ? 'double' : 'integer', value: number[0] };
    }
    fail(i >= text.length ? 'the text ends too early' : `unexpected "${c}"`);
  };
  const string = () => {
    const start = i;
    i++;
    for (;;) {
      if (i >= text.length) fail('a string is not closed');
      const c = text[i];
      if (c === '\\') { i += 2; continue; }
      if (c === '"') break;
      if (c < ' ') fail('a control character must be escaped in a string');
      i++;
    }
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const root = value(0);
  space();
  if (i < text.length) fail('unexpected text after the value');
  return root;
}

/** The node as JSON text, indented, numbers as they were written. */
export function printTyped(node, indent = '') {
  const inner = indent + '  ';
  switch (node.type) {
    case 'map':
      if (!node.value.length) return '{}';
      return `{\n${node.value.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${printTyped(v, inner)}`).join(',\n')}\n${indent}}`;
    case 'array':
      if (!node.value.length) return '[]';
      return `[\n${node.value.map((v) => inner + printTyped(v, inner)).join(',\n')}\n${indent}]`;
    case 'integer': case 'double': return node.value;
    default: return JSON.stringify(node.value);
  }
}

/** The field of a map node, or undefined. */
export function field(node, name) { return node?.type === 'map' ? node.value.find(([k]) => k === name)?.[1] : undefined; }
