import { usageError } from '../errors.js';

/** Characters a shell would give a meaning to (pipes, redirections, variables, globs, home, comments). */
const SHELL_SYNTAX = new Set(['|', '&', ';', '<', '>', '(', ')', '$', '`', '*', '?', '[', ']', '~', '#']);

const needsShell = (what: string) =>
  usageError(
    `the state command is run without a shell, so ${what} would not mean what a shell makes of it; to use a shell, say so: --state "sh -c '…'"`,
    'invalid_state_source',
  );

/**
 * Splits a state command into argv the way a shell splits words, and does nothing else a shell does:
 * words are separated by spaces or tabs; '…' keeps everything literally; "…" keeps everything but
 * \" and \\; a backslash outside quotes keeps the next character. Pipes, redirections, variables,
 * globs, `~` and comments are refused rather than passed on literally, so that a command written for
 * a shell fails with a clear message instead of running something else. No shell is ever started.
 */
export function splitCommand(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let index = 0;
  const add = (ch: string) => {
    word = (word ?? '') + ch;
  };
  while (index < text.length) {
    const ch = text[index] ?? '';
    index += 1;
    if (ch === ' ' || ch === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (ch === "'") {
      const end = text.indexOf("'", index);
      if (end < 0) throw usageError("the state command has a quote (') that is never closed", 'invalid_state_source');
      add(text.slice(index, end));
      index = end + 1;
    } else if (ch === '"') {
      add('');
      for (;;) {
        const next = text[index];
        index += 1;
        if (next === undefined)
          throw usageError('the state command has a quote (") that is never closed', 'invalid_state_source');
        if (next === '"') break;
        if (next === '$' || next === '`') throw needsShell(`"${next}" inside double quotes`);
        if (next === '\\' && (text[index] === '"' || text[index] === '\\')) {
          add(text[index] ?? '');
          index += 1;
        } else add(next);
      }
    } else if (ch === '\\') {
      const next = text[index];
      if (next === undefined) throw usageError('the state command ends with a lone backslash', 'invalid_state_source');
      add(next);
      index += 1;
    } else if (ch === '\n' || ch === '\r') {
      throw needsShell('a line break');
    } else if (SHELL_SYNTAX.has(ch)) {
      throw needsShell(`"${ch}"`);
    } else add(ch);
  }
  if (word !== undefined) words.push(word);
  if (words.length === 0) throw usageError('the state command is empty', 'invalid_state_source');
  return words;
}
