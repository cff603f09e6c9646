// JSON with every number's own digits (decisions.md, Products: "a number is read by its own
// digits, never through a binary double"). JSON.parse turns `99999999999999.99` into the double
// 99999999999999.984375 before any decimal code sees it, and Node 20 has no source text in its
// reviver; lossless-json reads each literal as text, on every Node.
//
// The parsed value is plain JSON (numbers are JS numbers), so schemas and every other reader see
// what JSON.parse would give. Where a literal is not the shortest text of its double ("1.50",
// "4.350000000000000001", "9007199254740993"), the object or array holding it remembers the
// literal under a symbol (not enumerable: no schema, serializer or Object.keys sees it), and
// `numberText` gives it back to the code that turns amounts into decimals.
import { parse } from 'lossless-json';

const LITERALS = Symbol('json number literals');

interface Remembered {
  value: number;
  text: string;
}

type WithLiterals = { [LITERALS]?: Map<string, Remembered> };

/** A number literal while the parse runs, before it becomes a number in its container. */
class Literal {
  constructor(readonly text: string) {}
}

const parseLiteral = (text: string) => new Literal(text);

/**
 * JSON.parse's value, with the literal of each number kept (see the top of this file). Throws a
 * SyntaxError for text that is not JSON. A repeated key keeps its last value, as in JSON.parse.
 *
 * Nearly every body writes each number as the shortest text of its double (`1250.5`, `2`): then
 * JSON.parse's value is already exact, there is nothing to remember, and the native parse is
 * used (lossless-json is several times slower). One pass over the text finds out.
 */
export function parseJsonExact(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  return everyNumberShortest(text) ? value : parseLossless(text);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/** Whether every number literal of a JSON text is the shortest text of its double. */
function everyNumberShortest(text: string): boolean {
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === BACKSLASH) index++;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) {
      inString = true;
    } else if (char === MINUS || (char >= ZERO && char <= NINE)) {
      let end = index + 1;
      while (end < text.length && isNumberChar(text.charCodeAt(end))) end++;
      const literal = text.slice(index, end);
      if (String(Number(literal)) !== literal) return false;
      index = end - 1;
    }
  }
  return true;
}

/** Digits, `.`, `e`, `E`, `+`, `-`: what follows the first character of a number literal. */
function isNumberChar(char: number): boolean {
  return (
    (char >= ZERO && char <= NINE) ||
    char === 0x2e ||
    char === 0x65 ||
    char === 0x45 ||
    char === 0x2b ||
    char === MINUS
  );
}

function parseLossless(text: string): unknown {
  const value = parse(text, null, {
    parseNumber: parseLiteral,
    onDuplicateKey: ({ newValue }) => newValue,
  });
  return value instanceof Literal ? Number(value.text) : settle(value);
}

/** Replaces the literals inside a parsed object or array by numbers, remembering their text. */
function settle(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++)
      value[index] = settled(value, String(index), value[index]);
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = settled(record, key, record[key]);
  }
  return value;
}

function settled(container: object, key: string, child: unknown): unknown {
  if (!(child instanceof Literal)) return settle(child);
  const number = Number(child.text);
  if (String(number) !== child.text) {
    const holder = container as WithLiterals;
    let literals = holder[LITERALS];
    if (!literals) {
      literals = new Map();
      Object.defineProperty(container, LITERALS, { value: literals, enumerable: false });
    }
    literals.set(key, { value: number, text: child.text });
  }
  return number;
}

/**
 * The digits a number of a parsed body was written with (`container[key]`): its literal when the
 * body was read by parseJsonExact, otherwise the number's shortest text (a value built in code).
 * Undefined when the value is not a finite number.
 */
export function numberText(container: unknown, key: string | number): string | undefined {
  if (typeof container !== 'object' || container === null) return undefined;
  const value = (container as Record<string, unknown>)[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const remembered = (container as WithLiterals)[LITERALS]?.get(String(key));
  // A value changed since the parse is no longer the one the literal wrote.
  return remembered && Object.is(remembered.value, value) ? remembered.text : String(value);
}

/**
 * The literal of `container[key]` when it is not the shortest text of its number (the only case
 * where comparing the number is not comparing its digits), else undefined.
 */
export function rememberedLiteral(container: unknown, key: string | number | undefined): string | undefined {
  if (typeof container !== 'object' || container === null || key === undefined) return undefined;
  const remembered = (container as WithLiterals)[LITERALS]?.get(String(key));
  return remembered && Object.is(remembered.value, (container as Record<string, unknown>)[key])
    ? remembered.text
    : undefined;
}

/** Copies the remembered literals of `from` onto `to` (a copy of a parsed object or array). */
export function keepLiterals<T extends object>(from: object, to: T): T {
  const literals = (from as WithLiterals)[LITERALS];
  if (literals) Object.defineProperty(to, LITERALS, { value: literals, enumerable: false });
  return to;
}
