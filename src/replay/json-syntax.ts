/**
 * Where a JSON text first goes wrong, and how, in the same words in Node and in the browser (the
 * engines' own JSON.parse messages differ by version and do not all give a position). Iterative, so
 * that deep nesting cannot overflow the stack. Called only once JSON.parse has refused the text.
 */
export interface JsonSyntaxError {
  /** Index (in characters) of the first character that cannot be there. */
  at: number;
  problem: string;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

const shown = (ch: string | undefined) =>
  ch === undefined ? 'the end of the text' : ch === '\n' ? 'a line break' : JSON.stringify(ch);

export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let i = 0;
  const fail = (problem: string): JsonSyntaxError => ({ at: i, problem });
  const skipWhitespace = () => {
    while (WHITESPACE.has(text[i] ?? '')) i += 1;
  };
  /** Reads a string starting at its opening quote; returns an error or undefined. */
  const string = (): JsonSyntaxError | undefined => {
    i += 1;
    for (;;) {
      const ch = text[i];
      if (ch === undefined) return fail('a string is never closed (a missing ")');
      if (ch === '"') {
        i += 1;
        return undefined;
      }
      if (ch < ' ') return fail(`${shown(ch)} inside a string (write it escaped, as \\n)`);
      if (ch === '\\') {
        const next = text[i + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return fail('\\u must be followed by 4 hex digits');
          i += 6;
        } else if (next !== undefined && ESCAPES.has(next)) i += 2;
        else return fail(`\\${next ?? ''} is not an escape JSON knows`);
      } else i += 1;
    }
  };
  const stack: Array<'{' | '['> = [];
  let state: 'value' | 'key' | 'after' = 'value';
  for (;;) {
    skipWhitespace();
    const ch = text[i];
    if (state === 'key') {
      if (ch !== '"') return fail(`expected a property name in double quotes, found ${shown(ch)}`);
      const error = string();
      if (error) return error;
      skipWhitespace();
      if (text[i] !== ':') return fail(`expected ':' after the property name, found ${shown(text[i])}`);
      i += 1;
      state = 'value';
    } else if (state === 'value') {
      if (ch === '{' || ch === '[') {
        stack.push(ch);
        i += 1;
        skipWhitespace();
        if (text[i] === (ch === '{' ? '}' : ']')) {
          stack.pop();
          i += 1;
          state = 'after';
        } else state = ch === '{' ? 'key' : 'value';
        continue;
      }
      if (ch === '"') {
        const error = string();
        if (error) return error;
      } else if (['true', 'false', 'null'].some((word) => text.startsWith(word, i))) {
        i += text.startsWith('false', i) ? 5 : 4;
      } else {
        NUMBER.lastIndex = i;
        const number = NUMBER.exec(text);
        if (!number || number[0] === '' || number[0] === '-') return fail(`expected a value, found ${shown(ch)}`);
        i += number[0].length;
      }
      state = 'after';
    } else {
      const top = stack.at(-1);
      if (top === undefined) return ch === undefined ? undefined : fail(`${shown(ch)} after the end of the JSON value`);
      const close = top === '{' ? '}' : ']';
      if (ch === ',') {
        i += 1;
        state = top === '{' ? 'key' : 'value';
      } else if (ch === close) {
        stack.pop();
        i += 1;
      } else return fail(`expected ',' or '${close}', found ${shown(ch)}`);
    }
  }
}
