// Exact decimals for the calculator: ±coefficient × 10^exponent with a BigInt coefficient. The same rules as the
// Swift engine (Sources/KuraCalc/ExactDecimal.swift): each operation rounds to 24 significant digits, a result to
// 20, both half to even; values stay below 10^100 in magnitude, and below 10^-100 become 0.

export const WORKING_DIGITS = 24;
export const DISPLAY_DIGITS = 20;
export const MAXIMUM_EXPONENT = 100;

/** A failed operation; `code` is one of the codes of apps/calc/cases.json. */
export class CalcError extends Error {
  constructor(code) {
    super(code);
    this.code = code;
  }
}

const digitCount = (n) => (n === 0n ? 0 : n.toString().length);
const pow10 = (n) => 10n ** BigInt(n);

export class Decimal {
  /** Prefer `Decimal.of`; `coefficient` is a non-negative BigInt. */
  constructor(negative, coefficient, exponent) {
    if (coefficient === 0n) {
      this.negative = false;
      this.coefficient = 0n;
      this.exponent = 0;
      return;
    }
    while (coefficient % 10n === 0n) {
      coefficient /= 10n;
      exponent += 1;
    }
    this.negative = negative;
    this.coefficient = coefficient;
    this.exponent = exponent;
  }

  /** A plain literal (`12`, `0.5`, `.5`, `5.`), or null. */
  static literal(text) {
    const match = /^([0-9]*)(?:\.([0-9]*))?$/.exec(text);
    if (!match || (match[1] === '' && (match[2] ?? '') === '')) return null;
    const fraction = match[2] ?? '';
    return new Decimal(false, BigInt((match[1] + fraction) || '0'), -fraction.length);
  }

  /** A value as `toString` prints it (`-1.5e+21`, `0.25`), e.g. a result kept in the history; or null. */
  static parse(text) {
    const match = /^(-?)([0-9]+(?:\.[0-9]*)?)(?:e([+-][0-9]{1,4}))?$/.exec(String(text));
    if (!match) return null;
    const plain = Decimal.literal(match[2]);
    const value = new Decimal(match[1] === '-', plain.coefficient, plain.exponent + Number(match[3] ?? 0));
    try {
      return value.bounded();
    } catch {
      return null;
    }
  }

  get isZero() {
    return this.coefficient === 0n;
  }

  get adjustedExponent() {
    return digitCount(this.coefficient) + this.exponent - 1;
  }

  negated() {
    return new Decimal(!this.negative, this.coefficient, this.exponent);
  }

  /** Rounded to `digits` significant digits, half to even; `sticky`: nonzero digits were already cut off. */
  rounded(digits, sticky = false) {
    const drop = digitCount(this.coefficient) - digits;
    if (drop <= 0) return this;
    const scale = pow10(drop);
    let kept = this.coefficient / scale;
    const cut = this.coefficient % scale;
    const half = 5n * pow10(drop - 1);
    if (cut > half || (cut === half && (sticky || kept % 2n === 1n))) kept += 1n;
    return new Decimal(this.negative, kept, this.exponent + drop);
  }

  bounded() {
    if (this.isZero) return this;
    if (this.adjustedExponent >= MAXIMUM_EXPONENT) throw new CalcError('overflow');
    if (this.adjustedExponent < -MAXIMUM_EXPONENT) return ZERO;
    return this;
  }

  static sum(a, b) {
    if (a.isZero) return b;
    if (b.isZero) return a;
    const exponent = Math.min(a.exponent, b.exponent);
    const x = a.coefficient * pow10(a.exponent - exponent);
    const y = b.coefficient * pow10(b.exponent - exponent);
    let exact;
    if (a.negative === b.negative) exact = new Decimal(a.negative, x + y, exponent);
    else if (y < x) exact = new Decimal(a.negative, x - y, exponent);
    else exact = new Decimal(b.negative, y - x, exponent);
    return exact.rounded(WORKING_DIGITS).bounded();
  }

  static difference(a, b) {
    return Decimal.sum(a, b.negated());
  }

  static product(a, b) {
    const exact = new Decimal(a.negative !== b.negative, a.coefficient * b.coefficient, a.exponent + b.exponent);
    return exact.rounded(WORKING_DIGITS).bounded();
  }

  static quotient(a, b) {
    if (b.isZero) throw new CalcError('divisionByZero');
    if (a.isZero) return ZERO;
    const scale = Math.max(0, WORKING_DIGITS + 2 + digitCount(b.coefficient) - digitCount(a.coefficient));
    const shifted = a.coefficient * pow10(scale);
    const quotient = shifted / b.coefficient;
    const remainder = shifted % b.coefficient;
    const exact = new Decimal(a.negative !== b.negative, quotient, a.exponent - scale - b.exponent);
    return exact.rounded(WORKING_DIGITS, remainder !== 0n).bounded();
  }

  /** Plain notation, or scientific (`1.5e+21`, `1e-7`) from 10^21 up and at 10^-7 and below. */
  toString() {
    if (this.isZero) return '0';
    const digits = this.coefficient.toString();
    const adjusted = this.adjustedExponent;
    const sign = this.negative ? '-' : '';
    if (adjusted >= 21 || adjusted <= -7) {
      const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
      return `${sign}${mantissa}e${adjusted >= 0 ? '+' : '-'}${Math.abs(adjusted)}`;
    }
    if (this.exponent >= 0) return sign + digits + '0'.repeat(this.exponent);
    if (adjusted >= 0) return `${sign}${digits.slice(0, adjusted + 1)}.${digits.slice(adjusted + 1)}`;
    return `${sign}0.${'0'.repeat(-adjusted - 1)}${digits}`;
  }
}

export const ZERO = new Decimal(false, 0n, 0);
