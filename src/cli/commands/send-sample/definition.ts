import type { Command } from '@commander-js/extra-typings';
import { ENTITIES } from '@ledgerhook/webhooks';
import { DEFAULT_LISTEN_PORT } from '../../../defaults.js';
import { EVENTS } from '@ledgerhook/webhooks';
import type { OptionsOf, RunCommand } from '../../runner.js';
import { collect, examples, integer } from '../../parsers.js';
import {
  addJsonOption,
  addSecretOptions,
  addVerificationHeaderOptions,
  addDeliveryTimeoutOption,
} from '../../common-options.js';
import { addFullHelpText, COMMAND_GROUPS, layOutOptions, moreExamples } from '../../help-layout.js';

const wrap = (words: readonly string[], indent: string) => {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && `${line} ${word}`.length > 96) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((text) => `${indent}${text}`).join('\n');
};

function sendSampleCommand(program: Command) {
  const command = program
    .command('send-sample')
    .helpGroup(COMMAND_GROUPS.webhooks)
    .summary('send a signed sample webhook to your app')
    .description(
      'Send a realistic webhook body, ENTITY_UPDATE or LIFECYCLE_EVENT as the service sends them, signed as the service signs it, to your receiver. TYPE is ENTITY_UPDATE, LIFECYCLE_EVENT (with --event) or an event name (any case). Exit 0 on 2xx, 1 on another status, 3 when nothing answers.',
    )
    .argument(
      '[type]',
      'ENTITY_UPDATE, LIFECYCLE_EVENT, or an event name such as INVOICE_VIEWED (`ledgerhook events` lists them)',
    )
    .option(
      '--to <target>',
      `where to send: a URL, host:port, :port, or a port (http://localhost:PORT/); default (or "localhost"): the \`ledgerhook listen\` running on this machine, else port ${DEFAULT_LISTEN_PORT}`,
    )
    .option('--event <name>', 'the LIFECYCLE_EVENT name')
    .option('--user <id>', 'userId of the body (default: a stable fake id)')
    .option('--entities <names>', 'comma-separated entity names for ENTITY_UPDATE')
    .option('--event-data <json>', 'eventData object for LIFECYCLE_EVENT, replacing the sample one')
    .option('--set <path=value>', 'set a field of the body, dotted path, JSON or string value (repeatable)', collect)
    .option('--body <file>', "send this file's bytes exactly instead of a generated body")
    .option('--unsigned', 'send no verification header')
    .option(
      '--iat <seconds>',
      'issue time in seconds since the epoch (backdate to test expiry)',
      integer('--iat', { min: 0 }),
    )
    .option(
      '--count <n>',
      'send this many deliveries (each with a fresh iat) and summarise',
      integer('--count', { min: 1, max: 10_000_000 }),
      1,
    )
    .option(
      '--concurrency <n>',
      'deliveries in flight at once with --count',
      integer('--concurrency', { min: 1, max: 1000 }),
      1,
    );
  return addJsonOption(addVerificationHeaderOptions(addSecretOptions(addDeliveryTimeoutOption(command))));
}

export type SendSampleCommandOptions = OptionsOf<typeof sendSampleCommand> & { type: string | undefined };

export function defineSendSample(program: Command, run: RunCommand): void {
  const command = layOutOptions(sendSampleCommand(program), [
    '--to',
    '--event',
    '--user',
    '--entities',
    '--set',
    '--body',
    '--secret-file',
    '--env',
    '--json',
  ]).addHelpText(
    'after',
    examples(
      'ledgerhook send-sample ENTITY_UPDATE   # to the `ledgerhook listen` running here',
      'ledgerhook send-sample ENTITY_UPDATE --to 3000',
      'ledgerhook send-sample invoice_viewed --to http://localhost:3000/webhooks --user user_42',
      'ledgerhook send-sample LIFECYCLE_EVENT --event EXPENSE_ADDED --set eventData.amount=19.99 --to :3000',
    ),
  );
  addFullHelpText(
    command,
    'more examples and the event and entity names',
    `${moreExamples(
      'ledgerhook send-sample ENTITY_UPDATE --entities expense,invoice --iat 1700000000 --to 3000   # expired',
      'ledgerhook send-sample ENTITY_UPDATE --count 5000 --concurrency 50 --to 3000',
    )}
Events:\n${wrap(
      EVENTS.map((e) => e.name),
      '  ',
    )}\nEntities:\n${wrap(
      ENTITIES.map((e) => e.name),
      '  ',
    )}\n`,
  ).action((type, options) => run(() => import('./send-sample.js'), { ...options, type }));
}
