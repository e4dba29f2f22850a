import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LedgerhookError } from '../errors.js';

/** $EDITOR, else $VISUAL, else what git falls back to. */
export function editorCommand(env: NodeJS.ProcessEnv, platform = process.platform): string {
  const given = [env.EDITOR, env.VISUAL].find((value) => value !== undefined && value.trim() !== '');
  return given ?? (platform === 'win32' ? 'notepad' : 'vi');
}

const editorFailed = (editor: string, what: string, cause?: unknown) =>
  new LedgerhookError('ERR_USAGE', `the editor (${editor}) ${what}: nothing was sent`, {
    details: { reason: 'editor_failed', editor },
    cause,
  });

/**
 * Runs the editor on a file as git does: the editor setting is the user's own (like a shell alias, it
 * may be `code --wait` or carry options), so it goes to `sh -c` as the command text, and the file
 * path is passed as a separate argument ("$@"), never written into that text: no quoting to get
 * wrong, whatever the path holds. On Windows, where there is no sh, the shell gets the quoted path.
 */
function runEditor(editor: string, file: string, outputToStderr: boolean, signal: AbortSignal): Promise<void> {
  const stdio: ['inherit', 'inherit' | number, 'inherit'] = ['inherit', outputToStderr ? 2 : 'inherit', 'inherit'];
  const child =
    process.platform === 'win32'
      ? spawn(`${editor} "${file}"`, { shell: true, stdio, signal })
      : spawn('/bin/sh', ['-c', `${editor} "$@"`, editor, file], { stdio, signal });
  return new Promise<void>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.name === 'AbortError'
          ? new LedgerhookError('ERR_ABORTED', 'interrupted while editing: nothing was sent', { cause: error })
          : editorFailed(editor, `could not start (${error.code ?? error.message})`, error),
      ),
    );
    child.once('exit', (code, killedBy) => {
      if (code === 0) resolve();
      else if (code === 127) reject(editorFailed(editor, 'was not found'));
      else reject(editorFailed(editor, killedBy ? `was stopped by ${killedBy}` : `exited with ${code}`));
    });
  });
}

export interface EditedText {
  text: string;
  /** The file came back as it was written (an editor's added final newline aside). */
  unchanged: boolean;
}

/**
 * Writes `text` to a private temporary file (a fresh 0700 directory, the file 0600), opens the
 * editor on it, and reads it back. The directory is removed afterwards, whatever happened.
 */
export async function editInEditor(
  text: string,
  options: { env: NodeJS.ProcessEnv; fileName: string; outputToStderr: boolean; signal: AbortSignal },
): Promise<EditedText> {
  const editor = editorCommand(options.env);
  const directory = await mkdtemp(join(tmpdir(), 'ledgerhook-edit-'));
  try {
    const file = join(directory, options.fileName);
    await writeFile(file, text, { mode: 0o600, flag: 'wx' });
    await runEditor(editor, file, options.outputToStderr, options.signal);
    const edited = await readFile(file, 'utf8');
    return { text: edited, unchanged: edited === text || edited === `${text}\n` };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
