import { access, constants } from 'node:fs/promises';
import { type CaptureLine, captureLines } from './capture-lines.js';
import { jsonLines, skipLine, skippedLines } from './json-lines.js';
import { errnoSentence } from '../util/fs-errors.js';
import { LedgerhookError, usageError } from '../errors.js';
import { isCaptureRecord, type CaptureRecord } from './capture-record.js';
import { isAttemptRecord } from './attempt-record.js';

export interface CaptureFile {
  records: CaptureRecord[];
  /** Lines skipped, each with why (a torn last line after a crash, say); past a hundred, one line counts the rest. */
  warnings: string[];
  /** Every line skipped. */
  skipped: number;
}

/** Where to start: a missing or unreadable file is a usage error naming it. */
function unreadable(path: string, error: unknown): LedgerhookError {
  const code = (error as NodeJS.ErrnoException).code;
  return new LedgerhookError(
    'ERR_USAGE',
    `cannot read capture file ${path}: ${code === 'ENOENT' ? 'no such file' : errnoSentence(error)}`,
    { cause: error, details: { reason: 'input_unreadable', path } },
  );
}

/** Throws the usage error readCaptures would for a capture file that cannot be read (missing, say). */
export async function assertReadableCapture(path: string): Promise<void> {
  try {
    await access(path, constants.R_OK);
  } catch (error) {
    throw unreadable(path, error);
  }
}

export interface CaptureFileSelection extends CaptureFile {
  /** The 0-based index of each record in the file (its position among the captured deliveries). */
  indexes: number[];
  /** Every captured delivery the file holds. */
  total: number;
}

/**
 * Reads a capture file as a stream (never one string: a capture of any size can be read), keeping
 * only what `select` chooses (`last` through a ring of that many): memory follows the selection,
 * not the file. A torn or foreign line is skipped with a warning (jsonLines); a hole of zero bytes silently.
 */
export async function readCaptures(path: string, select?: CaptureSelector): Promise<CaptureFileSelection> {
  const records: CaptureRecord[] = [];
  const indexes: number[] = [];
  const skipped = skippedLines('', 'the writer');
  // The kept records by id: each attempt line (listen --retry) joins its delivery; memory follows the selection.
  const kept = new Map<string, CaptureRecord>();
  let total = 0;
  let lines: AsyncGenerator<CaptureLine>;
  try {
    lines = captureLines(path);
    // The file is opened by the first step: its errors surface here, as a usage error.
    const first = await lines.next();
    if (!first.done) lines = prepend(first.value, lines);
  } catch (error) {
    throw unreadable(path, error);
  }
  for await (const { number, value } of jsonLines(lines, skipped)) {
    if (isAttemptRecord(value)) {
      const record = kept.get(value.deliveryId);
      if (record) record.attempts = [...(record.attempts ?? []), value];
      continue;
    }
    if (!isCaptureRecord(value)) {
      skipLine(skipped, number, 'JSON but not a captured delivery');
      continue;
    }
    const index = total;
    total += 1;
    if (select && !matches(value, index, select)) continue;
    delete value.attempts;
    records.push(value);
    indexes.push(index);
    kept.set(value.id, value);
    if (select?.last !== undefined && records.length > select.last) {
      const dropped = records.shift();
      if (dropped) kept.delete(dropped.id);
      indexes.shift();
    }
  }
  return { records, indexes, total, warnings: skipped.warnings, skipped: skipped.count };
}

async function* prepend<T>(first: T, rest: AsyncGenerator<T>): AsyncGenerator<T> {
  yield first;
  yield* rest;
}

/**
 * How a type or event name is compared, on the command line and in a capture alike: case, a dash
 * or an underscore do not matter (invoice-viewed is INVOICE_VIEWED), on both sides, so that a
 * captured custom event whose name has a dash is selected by that name as typed.
 */
export function nameKey(name: string): string {
  return name.trim().toUpperCase().replaceAll('-', '_');
}

// A capture file is someone else's: its names may be anything, null or a number among them.
const sameName = (given: unknown, wanted: string) => typeof given === 'string' && nameKey(given) === nameKey(wanted);

function matches(record: CaptureRecord, index: number, selector: CaptureSelector): boolean {
  if (selector.id !== undefined && record.id !== selector.id) return false;
  if (selector.index !== undefined && index !== selector.index) return false;
  if (selector.type !== undefined && !sameName(record.type, selector.type)) return false;
  if (selector.event !== undefined && !sameName(record.event, selector.event)) return false;
  return selector.user === undefined || record.userId === selector.user;
}

export interface CaptureSelector {
  id?: string;
  index?: number;
  last?: number;
  type?: string;
  event?: string;
  user?: string;
}

/**
 * Chooses deliveries by id, 0-based index, the last N, type, event or user (all given must hold);
 * type and event as nameKey compares them.
 */
export function selectCaptures(records: readonly CaptureRecord[], selector: CaptureSelector): CaptureRecord[] {
  let chosen = records.map((record, index) => ({ record, index }));
  if (selector.id !== undefined) {
    chosen = chosen.filter(({ record }) => record.id === selector.id);
    if (chosen.length === 0) throw usageError(`no captured delivery has id ${selector.id}`, 'capture_selection');
  }
  if (selector.index !== undefined) {
    if (selector.index < 0 || selector.index >= records.length)
      throw usageError(
        `index ${selector.index} is out of range: the capture holds ${records.length} deliveries (0 to ${records.length - 1})`,
        'capture_selection',
      );
    chosen = chosen.filter(({ index }) => index === selector.index);
  }
  const { type, event } = selector;
  if (type !== undefined) chosen = chosen.filter(({ record }) => sameName(record.type, type));
  if (event !== undefined) chosen = chosen.filter(({ record }) => sameName(record.event, event));
  if (selector.user !== undefined) chosen = chosen.filter(({ record }) => record.userId === selector.user);
  if (selector.last !== undefined) chosen = chosen.slice(-selector.last);
  return chosen.map(({ record }) => record);
}
