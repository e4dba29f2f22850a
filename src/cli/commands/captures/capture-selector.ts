import type { CaptureRecord } from '../../../capture/capture-record.js';
import type { CaptureSelector } from '../../../capture/read-captures.js';
import { EVENTS, WEBHOOK_TYPES } from '@ledgerhook/webhooks';
import { didYouMean } from '@ledgerhook/webhooks/advanced';
import { usageError } from '../../../errors.js';

type SelectorFlags = { [K in keyof CaptureSelector]?: CaptureSelector[K] | undefined };

const normalise = (name: string) => name.trim().toUpperCase().replace(/-/g, '_');

/**
 * The selectors replay and `captures list` share, checked before anything is sent or shown: a
 * misspelt --type or --event would otherwise select nothing, silently. --type is one of the two
 * webhook types; --event a catalogue event or one the capture holds (custom events exist, spec 1.5).
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
    const type = normalise(flags.type);
    if (!(WEBHOOK_TYPES as readonly string[]).includes(type))
      throw usageError(
        `unknown webhook type "${flags.type}"${didYouMean(flags.type, WEBHOOK_TYPES)}: use ${WEBHOOK_TYPES.join(' or ')}`,
        'unknown_webhook_type',
      );
    selector.type = type;
  }
  if (flags.event !== undefined) {
    const event = normalise(flags.event);
    const captured = new Set((records ?? []).flatMap((record) => (record.event === undefined ? [] : [record.event])));
    const known = [...EVENTS.map((definition) => definition.name), ...captured];
    if (records !== undefined && !known.some((name) => name.toUpperCase() === event))
      throw usageError(
        `unknown event "${flags.event}"${didYouMean(flags.event, known)}; \`ledgerhook events\` lists them`,
        'unknown_event',
      );
    selector.event = event;
  }
  return selector;
}
