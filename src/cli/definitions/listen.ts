import type { Command } from 'commander';
import type { RunCommand } from '../runner.js';
import type { SecretFlags } from '../resolve-settings.js';
import { decimal, examples, integer } from '../parsers.js';
import { addHeaderNameOption, addJsonOption, addSecretOptions } from './common-options.js';

export interface ListenCommandOptions extends SecretFlags {
  port: number;
  host: string;
  path?: string;
  capture?: string;
  forwardTo?: string;
  acceptInvalid?: boolean;
  maxBody: number;
  requestTimeout: number;
  tolerance: number;
  sync?: boolean;
  token?: string;
  tokens?: string;
  baseUrl?: string;
  out: string;
  limit: number;
  syncConcurrency: number;
  json?: boolean;
}

export function defineListen(program: Command, run: RunCommand): void {
  const command = program
    .command('listen')
    .summary('receive webhooks locally: verify, print, capture and forward them')
    .description('Receive webhook deliveries locally. Each is verified with the environment\'s secret (400 with the reason when invalid, like the spec\'s sample receiver), printed, optionally appended to a capture file and forwarded byte-exact to your app. Ctrl-C stops it cleanly and prints a summary.')
    .option('--port <port>', 'port to listen on (0 picks a free one)', integer('--port', { min: 0, max: 65535 }), 4000)
    .option('--host <host>', 'interface to bind; use 0.0.0.0 to accept from other machines', '127.0.0.1')
    .option('--path <path>', 'only accept deliveries on this path (default: any path)')
    .option('--capture <file>', 'append every delivery to this JSON Lines file (for replay and offline verify)')
    .option('--forward-to <url>', 'forward each accepted delivery to your app and answer with its status')
    .option('--accept-invalid', 'answer 200 to invalid deliveries too (they are still recorded as invalid)')
    .option('--max-body <bytes>', 'largest body accepted; larger gets 413', integer('--max-body', { min: 1 }), 1024 * 1024)
    .option('--request-timeout <seconds>', 'cut off senders slower than this', decimal('--request-timeout', { min: 0.1, max: 3600 }), 30)
    .option('--tolerance <seconds>', 'maximum webhook age in seconds', integer('--tolerance', { min: 0 }), 300)
    .option('--sync', 'on each verified ENTITY_UPDATE, sync the named entities of that user incrementally')
    .option('--token <token>', 'with --sync: access token used for every user (default: LEDGERHOOK_TOKEN, else the stored token)')
    .option('--tokens <file>', 'with --sync: JSON file mapping userId to access token, for several users')
    .option('--base-url <url>', 'with --sync: API root (default: LEDGERHOOK_BASE_URL, else the stored baseUrl)')
    .option('--out <dir>', 'with --sync: directory of the JSON files (one subdirectory per user)', './ledgerhook-data')
    .option('--limit <n>', 'with --sync: page size', integer('--limit', { min: 1, max: 100_000 }), 100)
    .option('--sync-concurrency <n>', 'with --sync: datasets synced at once', integer('--sync-concurrency', { min: 1, max: 32 }), 4);
  addSecretOptions(command, { repeatable: true });
  addHeaderNameOption(command);
  addJsonOption(command, 'print one JSON object per line (start, each delivery, summary) and nothing else on stdout');
  command
    .addHelpText('after', examples(
      'ledgerhook listen --capture deliveries.jsonl',
      'ledgerhook listen --port 4000 --forward-to http://localhost:3000/webhooks --secret-file sandbox.secret',
      'ledgerhook listen --host 0.0.0.0 --path /webhooks --json',
      'ledgerhook listen --sync --base-url http://127.0.0.1:4010/rest/v5 --token ledgerhook-mock-token --out ./data',
    ))
    .action((options: ListenCommandOptions) => run(() => import('../commands/listen.js'), options));
}
