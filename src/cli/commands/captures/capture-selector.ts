import type { CaptureRecord } from '../../../capture/capture-record.js';
import { type CaptureSelector, nameKey } from '../../../capture/read-captures.js';
import { EVENTS, WEBHOOK_TYPES } from '@ledgerhook/webhooks';
import { didYouMean } from '@ledgerhook/webhooks/advanced';
import { usageError } from '../../../errors.js';

type SelectorFlags = { [K in keyof CaptureSelector]?: CaptureSelector[K] | undefined };

/**
 * Captured names offered as a suggestion: a capture is a file anyone may have written, so only short
 * plain names, and only so many (each costs an edit distance), ever reach the error line.
 */
const SUGGESTED_NAME = /^[\w.:-]{1,64}$/;
const MAX_SUGGESTED_CAPTURED = 200;

/**
 * The selectors replay and `captures list` share, checked before anything is sent or shown: a
 * misspelt --type or --event would otherwise select nothing, silently. --type is one of the two
 * webhook types; --event a catalogue event or one the capture holds (custom events exist, spec 1.5).
 * Names compare as nameKey says (any case, dash or underscore), the same when they select.
 */
export function captureSelector(
  flags: SelectorFlags,
  /** The records to check a custom event against; undefined when the file is streamed (any name goes). */
  records: readonly CaptureRecord[] | undefined,
): CaptureSelector {
  const selector: CaptureSelector = {};
  if (flags.id !== undefined) selector.id = flags.id;
  if (flags.index !== undefined) selector.index = flags.index;
  if (flags.last !== undefined) selector.last = flags.last;
  if (flags.user !== undefined) selector.user = flags.user;
  if (flags.type !== undefined) {
    const type = nameKey(flags.type);
    if (!(WEBHOOK_TYPES as readonly string[]).includes(type))
      throw usageError(
        `unknown webhook type "${flags.type}"${didYouMean(flags.type, WEBHOOK_TYPES)}; use ${WEBHOOK_TYPES.join(' or ')}`,
        'unknown_webhook_type',
      );
    selector.type = type;
  }
  if (flags.event !== undefined) {
    const event = nameKey(flags.event);
    const catalogue = EVENTS.map((definition) => definition.name);
    if (records !== undefined && !catalogue.includes(event)) {
      const captured = new Set<string>();
      for (const record of records) if (typeof record.event === 'string') captured.add(record.event);
      if (![...captured].some((name) => nameKey(name) === event)) {
        const plain = [...captured].filter((name) => SUGGESTED_NAME.test(name)).slice(0, MAX_SUGGESTED_CAPTURED);
        throw usageError(
          `unknown event "${flags.event}"${didYouMean(flags.event, [...catalogue, ...plain])}; \`ledgerhook events\` lists them`,
          'unknown_event',
        );
      }
    }
    selector.event = event;
  }
  return selector;
}
