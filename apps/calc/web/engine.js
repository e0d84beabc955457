// The calculator's engine: a formula typed key by key, its result and the previous answer (Ans). It mirrors the
// Swift engine (Sources/KuraCalc/Calculator.swift and Evaluation.swift) rule for rule; apps/calc/cases.json is run
// against both. Keys are named as in the case file: 0-9 . + - * / ( ) Ans DEL AC =.

import { CalcError, Decimal, DISPLAY_DIGITS, ZERO } from './decimal.js';

export { Decimal, ZERO };

export const MAXIMUM_DIGITS = 20;
/** Characters a formula may have (as shown); a key that would make it longer is ignored. */
export const MAXIMUM_LENGTH = 1000;

/** The codes that are errors (the calculation has no result); the others are notices (a key was adjusted). */
export const ERROR_CODES = new Set(['unclosedParenthesis', 'incomplete', 'divisionByZero', 'overflow',
  'invalidCharacter', 'empty', 'invalidNumber', 'noSuchNumber']);

const OPERATORS = { '+': '+', '-': '-', '−': '-', '*': '×', '×': '×', '/': '÷', '÷': '÷' };
const multiplicative = (op) => op === '×' || op === '÷';
const endsOperand = (token) => !!token && ['number', 'close', 'answer'].includes(token.type);
const countDigits = (text) => text.replace('.', '').length;

export function tokenText(token) {
  switch (token.type) {
    case 'number': return token.text;
    case 'binary': return token.op;
    case 'sign': return '-';
    case 'open': return '(';
    case 'close': return ')';
    default: return 'Ans';
  }
}

/** `text` as a number token (`007` → `7`, `.5` → `0.5`), or null. */
export function normalizedNumber(text) {
  let digits = '';
  let point = false;
  for (const character of text) {
    if (character === '.') {
      if (point) return null;
      point = true;
      if (digits === '') digits = '0';
      digits += '.';
    } else if (character >= '0' && character <= '9') {
      if (digits === '0') digits = '';
      digits += character;
    } else {
      return null;
    }
  }
  if (digits === '' || countDigits(digits) > MAXIMUM_DIGITS) return null;
  return digits;
}

export class Calculator {
  constructor(answer = ZERO) {
    this.tokens = [];
    /** `{value: Decimal}`, `{error: code}` or null while typing. */
    this.outcome = null;
    this.answer = answer;
    this.showsResult = false;
  }

  get formula() {
    return this.tokens.map(tokenText).join('');
  }

  get last() {
    return this.tokens.at(-1);
  }

  get openParentheses() {
    return this.tokens.reduce((n, t) => (t.type === 'open' ? n + 1 : t.type === 'close' ? n - 1 : n), 0);
  }

  /** Presses the key named `name`; returns a notice code when the key was adjusted or ignored, else null. */
  press(name) {
    const before = { tokens: this.tokens.map((t) => ({ ...t })), outcome: this.outcome, showsResult: this.showsResult };
    const notice = this.apply(name);
    if (this.formula.length > MAXIMUM_LENGTH) {
      Object.assign(this, before);
      return 'formulaTooLong';
    }
    return notice;
  }

  apply(name) {
    if (name === '=') return this.equals();
    if (name === 'AC') {
      this.tokens = [];
      this.outcome = null;
      this.showsResult = false;
      return null;
    }
    if (name === 'DEL') {
      this.outcome = null;
      this.showsResult = false;
      this.deleteLast();
      return null;
    }
    if (name in OPERATORS) {
      if (this.showsResult && this.outcome?.value) this.tokens = [{ type: 'answer' }];
      this.outcome = null;
      this.showsResult = false;
      return this.typeOperator(OPERATORS[name]);
    }
    const digit = /^[0-9]$/.test(name);
    if (!digit && !['.', '(', ')', 'Ans'].includes(name)) throw new Error(`unknown key ${name}`);
    if (this.showsResult) this.tokens = [];
    this.outcome = null;
    this.showsResult = false;
    if (digit) return this.typeDigit(name);
    if (name === '.') return this.typePoint();
    if (name === '(') {
      this.multiplyIfOperandBefore();
      this.tokens.push({ type: 'open' });
    } else if (name === ')') {
      if (!endsOperand(this.last)) return 'operandExpected';
      if (this.openParentheses <= 0) return 'noOpenParenthesis';
      this.tokens.push({ type: 'close' });
    } else {
      this.multiplyIfOperandBefore();
      this.tokens.push({ type: 'answer' });
    }
    return null;
  }

  /** Replaces number `ordinal` (from 0) with `text` and calculates again; returns an error code when it cannot. */
  edit(ordinal, text) {
    const positions = this.tokens.flatMap((t, i) => (t.type === 'number' ? [i] : []));
    if (!(ordinal >= 0 && ordinal < positions.length)) return 'noSuchNumber';
    const digits = normalizedNumber(text);
    if (digits === null) return 'invalidNumber';
    const before = this.tokens[positions[ordinal]];
    this.tokens[positions[ordinal]] = { type: 'number', text: digits };
    if (this.formula.length > MAXIMUM_LENGTH) {
      this.tokens[positions[ordinal]] = before;
      return 'formulaTooLong';
    }
    this.showsResult = false;
    return this.equals();
  }

  /** The numbers of the formula: `[{ordinal, index, text}]` (index: the token's position). */
  numbers() {
    const list = [];
    this.tokens.forEach((t, index) => {
      if (t.type === 'number') list.push({ ordinal: list.length, index, text: t.text });
    });
    return list;
  }

  equals() {
    if (this.showsResult || this.tokens.length === 0) return null;
    try {
      const value = evaluate(this.tokens, this.answer);
      this.outcome = { value };
      this.answer = value;
      this.showsResult = true;
    } catch (error) {
      if (!(error instanceof CalcError)) throw error;
      this.outcome = { error: error.code };
    }
    return null;
  }

  typeDigit(digit) {
    const last = this.last;
    if (last?.type === 'number') {
      if (last.text === '0') {
        if (digit === '0') return 'leadingZero';
        last.text = digit;
        return null;
      }
      if (countDigits(last.text) >= MAXIMUM_DIGITS) return 'digitLimit';
      last.text += digit;
      return null;
    }
    this.multiplyIfOperandBefore();
    this.tokens.push({ type: 'number', text: digit });
    return null;
  }

  typePoint() {
    const last = this.last;
    if (last?.type === 'number') {
      if (last.text.includes('.')) return 'secondPoint';
      if (countDigits(last.text) >= MAXIMUM_DIGITS) return 'digitLimit';
      last.text += '.';
      return null;
    }
    this.multiplyIfOperandBefore();
    this.tokens.push({ type: 'number', text: '0.' });
    return null;
  }

  typeOperator(op) {
    const last = this.last;
    if (!last || last.type === 'open') {
      if (op !== '-') return 'operandExpected';
      this.tokens.push({ type: 'sign' });
    } else if (endsOperand(last)) {
      this.tokens.push({ type: 'binary', op });
    } else if (last.type === 'binary') {
      if (op === '-' && multiplicative(last.op)) {
        this.tokens.push({ type: 'sign' });
      } else if (op !== last.op) {
        last.op = op;
        return 'operatorReplaced';
      }
    } else {
      // A sign.
      if (op === '-') return null;
      this.tokens.pop();
      if (this.last?.type === 'binary') {
        this.last.op = op;
        return 'operatorReplaced';
      }
      return 'operandExpected';
    }
    return null;
  }

  multiplyIfOperandBefore() {
    if (endsOperand(this.last)) this.tokens.push({ type: 'binary', op: '×' });
  }

  deleteLast() {
    const last = this.last;
    if (!last) return;
    if (last.type === 'number' && last.text.length > 1) last.text = last.text.slice(0, -1);
    else this.tokens.pop();
  }
}

/** Calculates `text` as if typed (`*` `/` for × ÷, `Ans`; spaces skipped; one final `=`): `{calculator, notices}`. */
export function calculate(text, answer = ZERO) {
  const calculator = new Calculator(answer);
  const notices = [];
  let rest = text.endsWith('=') ? text.slice(0, -1) : text;
  while (rest.length > 0) {
    const character = rest[0];
    if (/\s/.test(character)) {
      rest = rest.slice(1);
      continue;
    }
    let key = null;
    if (rest.slice(0, 3).toLowerCase() === 'ans') {
      key = 'Ans';
      rest = rest.slice(3);
    } else {
      if (/^[0-9.()]$/.test(character) || character in OPERATORS) key = character;
      rest = rest.slice(1);
    }
    if (key === null) {
      calculator.outcome = { error: 'invalidCharacter' };
      return { calculator, notices };
    }
    const notice = calculator.press(key);
    if (notice === 'formulaTooLong') {
      // Text is not cut short silently: the whole formula is refused.
      calculator.outcome = { error: 'formulaTooLong' };
      return { calculator, notices };
    }
    if (notice) notices.push(notice);
  }
  if (calculator.tokens.length === 0) calculator.outcome = { error: 'empty' };
  else calculator.press('=');
  return { calculator, notices };
}

/** The value of well-formed tokens (× ÷ before + -, left to right; signs tightest); throws a CalcError. */
export function evaluate(tokens, answer) {
  if (!endsOperand(tokens.at(-1))) throw new CalcError('incomplete');
  const open = tokens.filter((t) => t.type === 'open').length;
  const closed = tokens.filter((t) => t.type === 'close').length;
  if (open !== closed) throw new CalcError(open > closed ? 'unclosedParenthesis' : 'noOpenParenthesis');
  let position = 0;
  const isBinary = (wantMultiplicative) => {
    const token = tokens[position];
    return token?.type === 'binary' && multiplicative(token.op) === wantMultiplicative;
  };
  function expression() {
    let value = term();
    while (isBinary(false)) {
      const op = tokens[position++].op;
      const right = term();
      value = op === '+' ? Decimal.sum(value, right) : Decimal.difference(value, right);
    }
    return value;
  }
  function term() {
    let value = factor();
    while (isBinary(true)) {
      const op = tokens[position++].op;
      const right = factor();
      value = op === '×' ? Decimal.product(value, right) : Decimal.quotient(value, right);
    }
    return value;
  }
  function factor() {
    const token = tokens[position++];
    switch (token?.type) {
      case 'sign': return factor().negated();
      case 'number': {
        const value = Decimal.literal(token.text);
        if (value === null) throw new CalcError('invalidNumber');
        return value;
      }
      case 'answer': return answer;
      case 'open': {
        const value = expression();
        if (tokens[position]?.type !== 'close') throw new CalcError('unclosedParenthesis');
        position += 1;
        return value;
      }
      default: throw new CalcError('incomplete');
    }
  }
  const value = expression();
  if (position !== tokens.length) throw new CalcError('noOpenParenthesis');
  return value.rounded(DISPLAY_DIGITS).bounded();
}

/** Runs one case of apps/calc/cases.json; returns what was shown, in the file's terms. */
export function runCase(test) {
  const answer = Decimal.literal(test.ans ?? '0');
  let calculator;
  let notices = [];
  if (test.formula !== undefined) {
    ({ calculator, notices } = calculate(test.formula, answer));
  } else {
    calculator = new Calculator(answer);
    for (const name of test.keys) {
      let notice;
      if (name.startsWith('edit:')) {
        const [, ordinal, ...text] = name.split(':');
        notice = calculator.edit(Number(ordinal), text.join(':'));
      } else {
        notice = calculator.press(name);
      }
      if (notice) notices.push(notice);
    }
  }
  return {
    display: calculator.formula,
    result: calculator.outcome?.value ? calculator.outcome.value.toString() : null,
    error: calculator.outcome?.error ?? null,
    notices,
    answer: calculator.answer.toString(),
  };
}
