import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDemo, type DemoEvent, type DemoResult } from '../../../demo/run-demo.js';
import { LedgerhookError } from '../../../errors.js';
import type { MutationResult } from '../../../mock/mock-types.js';
import { writeJson, writeLine, type CliContext } from '../../context.js';
import type { DemoCommandOptions } from './definition.js';
import { describeRecord } from '../../delivery-line.js';
import { syncEventLine } from '../listen/listen-sync.js';
import { prepareOutDir } from '../../resolve-dataset.js';

/** What one mutation did to a dataset, leaving out the kinds of change it did not make. */
function mutationLine(r: MutationResult): string {
  const parts = [
    [r.created, 'created'],
    [r.updated, 'updated'],
    [r.deleted, 'deleted'],
    [r.retyped, 'moved out of PENDING'],
  ]
    .filter(([ids]) => (ids as number[]).length > 0)
    .map(([ids, what]) => `${(ids as number[]).length} ${what}`);
  return `   ${r.path}: ${parts.join(', ')}`;
}

/**
 * Tells the demo's story as its events arrive: numbered steps, each heading printed when the
 * first event of its step does. Prints nothing with --json.
 */
function demoNarrator(options: Pick<DemoCommandOptions, 'json'>, ctx: CliContext) {
  const c = ctx.color;
  const say = (text = '') => !options.json && writeLine(ctx.stdout, text);
  let step = 0;
  let changesShown = false;
  const heading = (text: string) => say(`\n${c.bold(`${++step}.`)} ${text}`);
  const onEvent = (event: DemoEvent) => {
    switch (event.type) {
      case 'started':
        heading(
          `Started a mock of the API at ${event.apiUrl}\n   and a webhook receiver at ${event.receiverUrl} that verifies every signature.`,
        );
        heading(`Full sync for user ${event.userId} (first run: every page, no lastUpdatedDate):`);
        break;
      case 'full-sync':
        say(
          `   ${c.green('✔')} ${event.summary.dataset}: ${event.summary.total} items in ${event.summary.pages} page${event.summary.pages === 1 ? '' : 's'}`,
        );
        break;
      case 'mutation':
        if (!changesShown) {
          heading('Data changed on the service:');
          changesShown = true;
        }
        say(mutationLine(event.result));
        break;
      case 'delivery':
        if (step === 3)
          heading(
            'The service sent signed webhooks; each was verified, answered at once, and the\n   ENTITY_UPDATEs triggered incremental syncs that fetched only what changed:',
          );
        say(
          `   ← ${describeRecord(event.record)} ${event.record.verdict.valid ? c.green('(signature verified)') : c.red(`(${event.record.verdict.code})`)}`,
        );
        break;
      case 'sync': {
        const line = syncEventLine(event.event, ctx);
        if (line && event.event.type !== 'sync-start') say(` ${line}`);
        break;
      }
      case 'checked':
        if (event.dataset === '/expenses') heading("Checked the local files against the mock's data:");
        say(`   ${event.equal ? c.green('✔ equal') : c.red('✖ DIFFERENT')}  ${event.dataset} (${event.items} items)`);
        break;
    }
  };
  return { say, onEvent };
}

function printNextSteps(say: (text?: string) => void, result: DemoResult, started: number): void {
  say(`\nDone in ${((Date.now() - started) / 1000).toFixed(1)} s. The files are in ${result.userDir}`);
  say(`\nThe same against your sandbox (the API team sends the webhook secret):
  ledgerhook config set baseUrl https://<sandbox host>/rest/v5
  ledgerhook config set token - < access-token.txt
  ledgerhook config set webhookSecret - < sandbox.secret
  ledgerhook sync --all                     # first full sync into ./ledgerhook-data
  ledgerhook listen --sync --port 4000      # then let the webhooks drive incremental syncs
Or keep playing locally: \`ledgerhook mock\` in one terminal, \`ledgerhook sync expenses --base-url http://127.0.0.1:4010/rest/v5 --token ledgerhook-mock-token\` in another.`);
}

export async function run(options: DemoCommandOptions, ctx: CliContext): Promise<void> {
  if (options.out !== undefined) prepareOutDir(options.out);
  const outDir = options.out ?? (await mkdtemp(join(tmpdir(), 'ledgerhook-demo-')));
  const { say, onEvent } = demoNarrator(options, ctx);
  const started = Date.now();
  say(ctx.color.bold('ledgerhook demo: the whole webhook-to-sync loop, on this machine, in a few seconds.'));
  const result = await runDemo({ outDir, onEvent });
  if (options.json) writeJson(ctx, { ...result, outDir, seconds: Math.round((Date.now() - started) / 100) / 10 });
  else printNextSteps(say, result, started);
  if (!result.ok)
    throw new LedgerhookError(
      'ERR_CHECK_FAILED',
      `the local copy differs from the mock's data: ${result.datasets
        .filter((d) => !d.equal)
        .map((d) => d.dataset)
        .join(', ')}`,
    );
}
