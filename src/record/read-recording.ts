import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { jsonLines, skipLine, type SkippedLines, skippedLines } from '../capture/json-lines.js';
import type { CaptureRecord } from '../capture/capture-record.js';
import { readCaptures } from '../capture/read-captures.js';
import { DEFAULT_MAX_REPLAYED_RECORDING_BYTES } from '../defaults.js';
import { LedgerhookError } from '../errors.js';
import { firstIndex } from '../util/first-index.js';
import { errnoSentence } from '../util/fs-errors.js';
import {
  DELIVERIES_FILE,
  isDeliveryMark,
  isRecordedExchange,
  isRecordingHeader,
  RECORDING_FILE,
  type RecordedExchange,
  type RecordingHeader,
} from './recording-format.js';

/** A delivery in its place in the timeline. */
export interface RecordedDelivery {
  /** Its place: the mark's sequence number (a delivery without a mark falls after what came before it). */
  seq: number;
  at: string;
  record: CaptureRecord;
}

export interface Recording {
  dir: string;
  header: RecordingHeader;
  /** Ordered by sequence (the order the requests arrived in). */
  exchanges: RecordedExchange[];
  /** Ordered by sequence. */
  deliveries: RecordedDelivery[];
  /** Lines skipped and why (a torn last line after a crash, a line of another shape). */
  warnings: string[];
}

export interface ReadRecordingOptions {
  /** A larger file is refused before it is read (a recording is held in memory to be served). */
  maxBytes?: number | undefined;
}

function unreadable(dir: string, why: string, cause?: unknown): LedgerhookError {
  return new LedgerhookError('ERR_USAGE', `${dir} is not a recording ledgerhook can read: ${why}`, {
    cause,
    details: { reason: 'recording_unreadable', path: dir },
  });
}

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? info.size : Number.NaN;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The timeline file: its header, then its exchanges and marks, each line checked, bad ones skipped with a warning. */
async function readTimeline(dir: string, path: string, skipped: SkippedLines) {
  let header: RecordingHeader | undefined;
  const exchanges: RecordedExchange[] = [];
  const marks = new Map<string, { seq: number; at: string }>();
  for await (const { number, value } of jsonLines(path, skipped)) {
    if (header === undefined) {
      if (!isRecordingHeader(value))
        throw unreadable(dir, `the first line of ${RECORDING_FILE} is not a recording header`);
      header = value;
    } else if (isRecordedExchange(value)) exchanges.push(value);
    else if (isDeliveryMark(value)) {
      if (!marks.has(value.id)) marks.set(value.id, { seq: value.seq, at: value.at });
    } else skipLine(skipped, number, 'not an exchange or a delivery mark');
  }
  if (header === undefined) throw unreadable(dir, `${RECORDING_FILE} is empty`);
  exchanges.sort((a, b) => a.seq - b.seq);
  return { header, exchanges, marks };
}

/** Where an unmarked delivery falls: after the last exchange that arrived before it (a binary search by time). */
function placer(exchanges: readonly RecordedExchange[]): (receivedAt: string) => number {
  const byTime = exchanges.map((exchange) => ({ at: Date.parse(exchange.at), seq: exchange.seq }));
  byTime.sort((a, b) => a.at - b.at);
  let highest = -1;
  const upTo = byTime.map((entry) => (highest = Math.max(highest, entry.seq)));
  return (receivedAt) => {
    const at = Date.parse(receivedAt);
    const after = firstIndex(byTime.length, (index) => (byTime[index] as { at: number }).at > at);
    return (after === 0 ? -1 : (upTo[after - 1] ?? -1)) + 0.5;
  };
}

/**
 * Reads a recording directory whole (it is served from memory), refusing one larger than the bound
 * before reading it. Every line is checked as hostile input: a file someone else may have written.
 */
export async function readRecording(dir: string, options: ReadRecordingOptions = {}): Promise<Recording> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_REPLAYED_RECORDING_BYTES;
  const timelinePath = join(dir, RECORDING_FILE);
  const deliveriesPath = join(dir, DELIVERIES_FILE);
  let sizes: Array<number | undefined>;
  try {
    sizes = [await sizeOf(timelinePath), await sizeOf(deliveriesPath)];
  } catch (error) {
    throw unreadable(dir, errnoSentence(error), error);
  }
  const [timelineBytes, deliveryBytes = 0] = sizes;
  if (timelineBytes === undefined) throw unreadable(dir, `it holds no ${RECORDING_FILE}`);
  if (!Number.isFinite(timelineBytes) || !Number.isFinite(deliveryBytes))
    throw unreadable(dir, `${RECORDING_FILE} or ${DELIVERIES_FILE} is not a regular file`);
  if (timelineBytes + deliveryBytes > maxBytes)
    throw unreadable(dir, `it holds ${timelineBytes + deliveryBytes} bytes, more than the ${maxBytes} a replay reads`);
  const timeline = skippedLines(`${RECORDING_FILE} `, 'the recorder');
  const { header, exchanges, marks } = await readTimeline(dir, timelinePath, timeline);
  const warnings = timeline.warnings;
  const deliveries: RecordedDelivery[] = [];
  if (sizes[1] !== undefined) {
    const captured = await readCaptures(deliveriesPath);
    warnings.push(...captured.warnings.map((warning) => `${DELIVERIES_FILE}: ${warning}`));
    const seen = new Set<string>();
    const placeOf = placer(exchanges);
    for (const record of captured.records) {
      if (seen.has(record.id)) {
        warnings.push(`${DELIVERIES_FILE}: delivery ${record.id.slice(0, 80)} appears twice; the first is kept`);
        continue;
      }
      seen.add(record.id);
      const mark = marks.get(record.id);
      deliveries.push({ seq: mark?.seq ?? placeOf(record.receivedAt), at: mark?.at ?? record.receivedAt, record });
    }
  }
  deliveries.sort((a, b) => a.seq - b.seq);
  return { dir, header, exchanges, deliveries, warnings };
}
