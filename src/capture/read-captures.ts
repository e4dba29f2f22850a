import { readFile } from 'node:fs/promises';
import { LedgerhookError, usageError } from '../errors.js';
import { isCaptureRecord, type CaptureRecord } from './capture-record.js';

export interface CaptureFile {
  records: CaptureRecord[];
  /** Lines skipped, each with why (a torn last line after a crash, say). */
  warnings: string[];
}

/** Reads a capture file; a torn or foreign line is skipped with a warning, never fatal. */
export async function readCaptures(path: string): Promise<CaptureFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new LedgerhookError(
      'ERR_USAGE',
      `cannot read capture file ${path}: ${code === 'ENOENT' ? 'no such file' : (code ?? (error as Error).message)}`,
      { cause: error },
    );
  }
  const lines = text.split('\n');
  const records: CaptureRecord[] = [];
  const warnings: string[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const last = index === lines.length - 1;
    try {
      const value: unknown = JSON.parse(line);
      if (isCaptureRecord(value)) records.push(value);
      else warnings.push(`line ${index + 1} is JSON but not a captured delivery; skipped`);
    } catch {
      warnings.push(
        last
          ? `line ${index + 1} is incomplete (the writer was stopped mid-line); skipped`
          : `line ${index + 1} is not JSON; skipped`,
      );
    }
  });
  return { records, warnings };
}

export interface CaptureSelector {
  id?: string;
  index?: number;
  last?: number;
  type?: string;
  event?: string;
  user?: string;
}

/** Chooses deliveries by id, 0-based index, the last N, type, event or user (all given must hold). */
export function selectCaptures(records: readonly CaptureRecord[], selector: CaptureSelector): CaptureRecord[] {
  let chosen = records.map((record, index) => ({ record, index }));
  if (selector.id !== undefined) {
    chosen = chosen.filter(({ record }) => record.id === selector.id);
    if (chosen.length === 0) throw usageError(`no captured delivery has id ${selector.id}`);
  }
  if (selector.index !== undefined) {
    if (selector.index < 0 || selector.index >= records.length)
      throw usageError(
        `index ${selector.index} is out of range: the capture holds ${records.length} deliveries (0 to ${records.length - 1})`,
      );
    chosen = chosen.filter(({ index }) => index === selector.index);
  }
  const { type, event } = selector;
  if (type !== undefined) chosen = chosen.filter(({ record }) => record.type?.toUpperCase() === type.toUpperCase());
  if (event !== undefined) chosen = chosen.filter(({ record }) => record.event?.toUpperCase() === event.toUpperCase());
  if (selector.user !== undefined) chosen = chosen.filter(({ record }) => record.userId === selector.user);
  if (selector.last !== undefined) chosen = chosen.slice(-selector.last);
  return chosen.map(({ record }) => record);
}
