import { emitKeypressEvents } from 'node:readline';
import { LedgerhookError } from '../errors.js';

interface Key {
  name?: string | undefined;
  ctrl?: boolean | undefined;
  meta?: boolean | undefined;
}

/** The terminal side of a prompt: stdin in the real CLI, a stream in tests. */
export interface PromptInput extends NodeJS.ReadableStream {
  isTTY?: boolean | undefined;
  setRawMode?: ((mode: boolean) => unknown) | undefined;
}

/**
 * Asks for a secret on a terminal without echoing it: readline's keypress events in raw mode, so
 * that not a single character reaches the screen (or a terminal recording). Enter finishes,
 * Backspace edits, Ctrl-C or Ctrl-D on an empty line cancel.
 */
export function promptHidden(question: string, input: PromptInput, output: NodeJS.WritableStream): Promise<string> {
  // Raw mode first: once the question is visible, not one typed character is echoed.
  emitKeypressEvents(input);
  input.setRawMode?.(true);
  input.resume();
  output.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: LedgerhookError) => {
      input.off('keypress', onKey);
      input.setRawMode?.(false);
      input.pause();
      output.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const cancel = () =>
      finish(
        new LedgerhookError('ERR_ABORTED', 'cancelled at the prompt', { details: { reason: 'prompt_cancelled' } }),
      );
    const onKey = (text: string | undefined, key: Key | undefined) => {
      if (key?.ctrl && key.name === 'c') return cancel();
      if (key?.ctrl && key.name === 'd') return value === '' ? cancel() : finish();
      if (key?.name === 'return' || key?.name === 'enter') return finish();
      if (key?.name === 'backspace') {
        value = value.slice(0, -1);
        return;
      }
      if (text !== undefined && !key?.ctrl && !key?.meta) value += text;
    };
    input.on('keypress', onKey);
  });
}
