import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_MAX_DELIVERIES } from '../../src/inspector/inspector-source.js';
import { captureRecord } from '../helpers/capture-file.js';
import { startCli, tempDir } from '../helpers/cli.js';

describe('inspect FILE past the memory bound', () => {
  it('says how many the page holds instead of dropping the oldest silently', async () => {
    const template = await captureRecord('{"userId":"u","type":"ENTITY_UPDATE","entities":["expense"]}', { id: 'x' });
    const total = DEFAULT_MAX_DELIVERIES + 5;
    const lines = Array.from({ length: total }, (_, index) => JSON.stringify({ ...template, id: `dlv_${index}` }));
    const file = join(tempDir(), 'big.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);

    const json = startCli(['inspect', file, '--port', '0', '--json']);
    try {
      const started = await json.waitFor((line) => line?.kind === 'inspecting', 30_000);
      assert.equal(started.deliveries, total);
      assert.equal(started.shown, DEFAULT_MAX_DELIVERIES);
      const list = await fetch(new URL('api/deliveries', started.inspectorUrl)).then((r) => r.json());
      assert.equal(list.length, DEFAULT_MAX_DELIVERIES);
      assert.equal(list.at(-1).id, `dlv_${total - 1}`);
    } finally {
      await json.stop();
    }
    const human = startCli(['inspect', file, '--port', '0']);
    try {
      // A status line: on stderr.
      const [note] = await human.waitForStderr(/^the page holds.*$/m, 30_000);
      assert.equal(
        note,
        `the page holds the newest ${DEFAULT_MAX_DELIVERIES} (a memory bound); select older ones with \`ledgerhook captures list\``,
      );
    } finally {
      await human.stop();
    }
  });
});
