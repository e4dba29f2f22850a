import type { Command } from 'commander';
import type { RunCommand } from '../runner.js';
import type { SecretFlags } from '../resolve-settings.js';
import type { CaptureSelector } from '../../capture/read-captures.js';
import { decimal, examples, integer } from '../parsers.js';
import { addHeaderNameOption, addJsonOption, addSecretOptions } from './common-options.js';

export interface ReplayCommandOptions extends SecretFlags, CaptureSelector {
  file: string;
  to: string;
  asCaptured?: boolean;
  concurrency: number;
  delay?: number;
  timeout: number;
  json?: boolean;
}

export function defineReplay(program: Command, run: RunCommand): void {
  const command = program
    .command('replay')
    .summary('replay captured deliveries into your app, re-signed so they still verify')
    .description('Replay deliveries captured by `ledgerhook listen --capture` to TARGET, byte-exact. Each is re-signed with a fresh iat so that an old capture still verifies; --as-captured sends the original token unchanged. Exit 0 only if every answer was 2xx; 3 if nothing answers.')
    .argument('<file>', 'capture file written by listen --capture')
    .requiredOption('--to <target>', 'where to send: a URL, host:port, :port, or a port')
    .option('--id <id>', 'only the delivery with this id')
    .option('--index <n>', 'only the delivery at this 0-based position', integer('--index', { min: 0 }))
    .option('--last <n>', 'only the last N (after the other filters)', integer('--last', { min: 1 }))
    .option('--type <type>', 'only ENTITY_UPDATE or LIFECYCLE_EVENT')
    .option('--event <name>', 'only this LIFECYCLE_EVENT')
    .option('--user <id>', 'only deliveries for this userId')
    .option('--as-captured', 'send the original verification header unchanged (no re-signing)')
    .option('--concurrency <n>', 'deliveries in flight at once', integer('--concurrency', { min: 1, max: 1000 }), 1)
    .option('--delay <ms>', 'pause between deliveries (keeps the captured order)', integer('--delay', { min: 0 }))
    .option('--timeout <seconds>', 'how long to wait for each answer', decimal('--timeout', { min: 0.001, max: 3600 }), 10);
  addSecretOptions(command);
  addHeaderNameOption(command);
  addJsonOption(command);
  command
    .addHelpText('after', examples(
      'ledgerhook replay deliveries.jsonl --to http://localhost:3000/webhooks',
      'ledgerhook replay deliveries.jsonl --to 3000 --last 5 --event INVOICE_VIEWED',
      'ledgerhook replay deliveries.jsonl --to 3000 --id dlv_lx2k9a1b2c3d --as-captured   # test expiry handling',
    ))
    .action((file: string, options: Omit<ReplayCommandOptions, 'file'>) => run(() => import('../commands/replay.js'), { ...options, file }));
}
