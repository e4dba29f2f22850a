import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

const SECRET = 'whsec_prefix_e2e';

describe('verificationPrefix across the CLI', () => {
  it('config set verificationPrefix Bearer: sign, send-sample and listen all speak "Bearer <jwt>"', async () => {
    const env = { LEDGERHOOK_CONFIG_DIR: tempDir('ledgerhook-config-'), LEDGERHOOK_WEBHOOK_SECRET: SECRET };
    const set = await runInProcess(['config', 'set', 'verificationPrefix', 'Bearer', '--env', 'sandbox'], { env });
    assert.equal(set.code, 0, set.stderr);
    const shown = await runInProcess(['config', 'get', 'verificationPrefix', '--env', 'sandbox'], { env });
    assert.equal(shown.stdout, 'Bearer \n');

    const signed = await runInProcess(['sign', '--data', '{"a":1}', '--format', 'header', '--env', 'sandbox'], { env });
    assert.match(signed.stdout, /^Service-Verification: Bearer eyJ[\w-]+\.[\w-]+\.[\w-]+\n$/);

    const capture = join(tempDir(), 'deliveries.jsonl');
    const listen = startCli(['listen', '--port', '0', '--json', '--env', 'sandbox', '--capture', capture], { env });
    try {
      const { url } = await listen.waitFor((line) => line?.kind === 'listening');
      // The built bin for this one; the other runs in-process (same definitions, command modules, error mapping).
      const sent = await runCli(['send-sample', 'ENTITY_UPDATE', '--to', url, '--env', 'sandbox', '--json'], { env });
      assert.equal(sent.code, 0, sent.stdout + sent.stderr);
      const delivery = await listen.waitFor((line) => line?.kind === 'delivery');
      assert.equal(delivery.verdict.valid, true);
      // The same send with the prefix switched off on the sending side is refused, saying why.
      const bare = await runInProcess(['send-sample', 'ENTITY_UPDATE', '--to', url, '--env', 'sandbox', '--json'], {
        env: { ...env, LEDGERHOOK_VERIFICATION_PREFIX: '' },
      });
      assert.equal(JSON.parse(bare.stdout).status, 400);
      const refused = await listen.waitFor((line) => line?.kind === 'delivery' && line.verdict.valid === false);
      assert.match(refused.verdict.message, /configured verification prefix "Bearer "/);
      // A re-signed replay carries the prefix too: the listener that captured it accepts it again.
      const replayed = await runInProcess(
        ['replay', capture, '--id', delivery.id, '--to', url, '--env', 'sandbox', '--json'],
        {
          env,
        },
      );
      assert.equal(replayed.code, 0, replayed.stdout + replayed.stderr);
      const again = await listen.waitFor(
        (line) => line?.kind === 'delivery' && line.id !== delivery.id && line.verdict.valid,
      );
      assert.equal(again.verdict.valid, true);
    } finally {
      await listen.stop();
    }
  });

  it('verify names the setting when it meets a prefix it was not told about', async () => {
    const token = (
      await runInProcess(['sign', '--data', '{"a":1}', '--format', 'token'], {
        env: { LEDGERHOOK_WEBHOOK_SECRET: SECRET },
      })
    ).stdout.trim();
    const refused = await runInProcess(['verify', '--data', '{"a":1}', '--token', `Bearer ${token}`], {
      env: { LEDGERHOOK_WEBHOOK_SECRET: SECRET },
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /starts with "Bearer "/);
    assert.match(refused.stdout, /--verification-prefix 'Bearer '/);
    const accepted = await runInProcess(
      ['verify', '--data', '{"a":1}', '--token', `Bearer ${token}`, '--verification-prefix', 'Bearer '],
      { env: { LEDGERHOOK_WEBHOOK_SECRET: SECRET } },
    );
    assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
  });
});
