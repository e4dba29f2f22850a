import type { Command } from '@commander-js/extra-typings';
import {
  DEFAULT_LISTEN_PORT,
  DEFAULT_MAX_RECORDED_BODY_BYTES,
  DEFAULT_MAX_RECORDING_BYTES,
  DEFAULT_RECORD_PORT,
} from '../../../defaults.js';
import {
  addJsonOption,
  addRedactOption,
  addSecretOptions,
  addVerificationHeaderOptions,
  toleranceOption,
} from '../../common-options.js';
import { COMMAND_GROUPS, layOutOptions } from '../../help-layout.js';
import { examples, integer } from '../../parsers.js';
import type { OptionsOf, RunCommand } from '../../runner.js';

function recordCommand(program: Command) {
  const command = program
    .command('record')
    .helpGroup(COMMAND_GROUPS.local)
    .summary('record real traffic, redacted, for the mock')
    .description(
      'Run a recording proxy on loopback in front of the API: point your sync or app at it, and each request is forwarded to --base-url while each exchange (method, path, query, paging headers, status, body) is written to --out DIR in order, before the answer is relayed; the Authorization header is never recorded. With --listen-port, webhooks are verified as `listen` does and recorded into the same timeline. Personal data (e-mail addresses, names, descriptions, account and card numbers, IBANs, and the fields --redact names) is replaced with a keyed hash before it reaches the disk. `ledgerhook recordings show DIR` reads a recording; `ledgerhook mock --from DIR` serves it.',
    )
    .requiredOption('--out <dir>', 'the recording directory (created; an existing recording is never overwritten)')
    .option('--base-url <url>', 'the API root to forward to (default: LEDGERHOOK_BASE_URL, else the stored baseUrl)')
    .option(
      '--port <port>',
      'port of the recording proxy (0 picks a free one)',
      integer('--port', { min: 0, max: 65535 }),
      DEFAULT_RECORD_PORT,
    )
    .option('--host <host>', 'interface of the proxy and the listener', '127.0.0.1')
    .option(
      '--listen-port <port>',
      `also receive webhooks on this port (e.g. ${DEFAULT_LISTEN_PORT}; 0 picks a free one), verified and recorded into the same timeline`,
      integer('--listen-port', { min: 0, max: 65535 }),
    )
    .option(
      '--forward-to <url>',
      'with --listen-port: forward each delivery to your app, byte-exact, and answer with its status',
    );
  const recording = addRedactOption(
    command,
    'more fields to redact beside the defaults (which always apply): names at any depth or JSON paths, comma-separated (e.g. merchant,$.data[*].tags)',
  )
    .option('--fsync', 'fdatasync each batch of lines, so that an answered exchange survives a power cut too')
    .option(
      '--max-bytes <n>',
      'the timeline file stops growing here; later requests are answered 507',
      integer('--max-bytes', { min: 1024 }),
      DEFAULT_MAX_RECORDING_BYTES,
    )
    .option(
      '--max-body <bytes>',
      'an answer larger than this is forwarded but its body not recorded',
      integer('--max-body', { min: 1024 }),
      DEFAULT_MAX_RECORDED_BODY_BYTES,
    )
    .option(...toleranceOption('with --listen-port: maximum webhook age in seconds'));
  // --env (from the secret options) picks the stored baseUrl as well as the secret.
  return addJsonOption(
    addVerificationHeaderOptions(addSecretOptions(recording, { repeatable: true })),
    'print one JSON object per line (kind: recording, exchange, delivery, refused, summary) and nothing else on stdout',
  );
}

export type RecordCommandOptions = OptionsOf<typeof recordCommand>;

export function defineRecord(program: Command, run: RunCommand): void {
  layOutOptions(recordCommand(program), [
    '--out',
    '--base-url',
    '--port',
    '--listen-port',
    '--forward-to',
    '--redact',
    '--secret-file',
    '--env',
    '--json',
  ])
    .addHelpText(
      'after',
      examples(
        'ledgerhook record --base-url https://sandbox.example.com/rest/v5 --out ./bug-123',
        '# in another terminal: sync through the proxy, as your app would',
        'ledgerhook sync expenses --base-url http://127.0.0.1:4030/rest/v5 --token-file sandbox.token',
        '# webhooks too: the sandbox (or a tunnel) sends them to port 4000, your app gets them on :3000',
        'ledgerhook record --env sandbox --out ./bug-123 --listen-port 4000 --forward-to :3000 --secret-file sandbox.secret',
        'ledgerhook record --base-url https://sandbox.example.com/rest/v5 --out ./bug-123 --redact merchant,$.data[*].tags',
        'ledgerhook recordings show ./bug-123',
        'ledgerhook mock --from ./bug-123 --webhook-url :3000 --speed 10',
      ),
    )
    .action((options) => run(() => import('./record.js'), options));
}
