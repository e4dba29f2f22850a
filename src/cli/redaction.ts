import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { CaptureRecord } from '../capture/capture-record.js';
import { usageError } from '../errors.js';
import { redactCaptureRecord } from '../redact/redact-capture.js';
import { parseRedactRules } from '../redact/redact-rules.js';
import { createRedactor, type Redactor } from '../redact/redactor.js';
import { redactFields } from './common-options.js';
import { type CliContext, writeLine } from './context.js';
import { keyFile } from './key-file.js';
import { settingsStore } from './resolve-settings.js';

/** Beside the settings, never in a recording or a capture: what makes a redacted value unreadable. */
export const REDACTION_KEY_FILE = 'redaction.key';

/**
 * `--redact`: the redactor of record, listen --capture and the inspector, keyed with the key kept in
 * the config directory (made on first use). One key per machine: equal values redacted on different
 * days, by different commands, still hash equal, so recordings and captures join.
 */
export async function resolveRedactor(fields: readonly string[] | undefined, ctx: CliContext): Promise<Redactor> {
  // The rules first: a mistake in them makes no key.
  parseRedactRules(fields ?? []);
  const file = join(dirname((await settingsStore(ctx)).path), REDACTION_KEY_FILE);
  const found = keyFile(file, 'redaction key', () => randomBytes(32).toString('hex'));
  if (found?.created)
    writeLine(
      ctx.stderr,
      ctx.color.dim(
        `created the redaction key in ${file}: it stays on this machine and is never written into a recording`,
      ),
    );
  if (!found || !/^[0-9a-f]{64}$/.test(found.value))
    throw usageError(
      `the redaction key ${file} is not 64 hex digits: remove it to have a new one made (values redacted before will no longer hash equal to new ones)`,
      'settings_invalid',
    );
  return createRedactor({ key: Buffer.from(found.value, 'hex'), fields });
}

/** What `--redact` does to a delivery shown or kept: its capture line, and its body as --print-body prints it. */
export interface Redaction {
  record: (record: CaptureRecord) => CaptureRecord;
  body: (body: Buffer) => string;
}

/** `--redact [fields]` of listen and inspect: undefined when it is not given. */
export async function captureRedaction(value: string | undefined, ctx: CliContext): Promise<Redaction | undefined> {
  const fields = redactFields(value);
  if (fields === undefined) return undefined;
  const redactor = await resolveRedactor(fields, ctx);
  return {
    record: (record) => redactCaptureRecord(record, redactor),
    body: (body) => {
      try {
        return JSON.stringify(redactor.json(JSON.parse(body.toString('utf8'))).value);
      } catch {
        return `(${body.length} bytes that are not JSON, not shown: --redact cannot redact them field by field)`;
      }
    },
  };
}
