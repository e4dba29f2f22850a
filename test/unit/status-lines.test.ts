/**
 * Status lines print userIds, entity and event names, and error text that arrive over the network:
 * no control character (C0 or C1, such as ESC or the one-byte CSI U+009B) reaches the terminal.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadColor, type CliContext } from '../../src/cli/context.js';
import { syncEventLine } from '../../src/cli/commands/listen/listen-sync.js';

const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u009b31m';
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('status lines', () => {
  it('escape every network value in listen --sync lines', async () => {
    const ctx = { color: await loadColor(process.stdout, { NO_COLOR: '1' }) } as unknown as CliContext;
    const lines = [
      syncEventLine(
        { type: 'sync-start', userId: HOSTILE, entity: 'expense', dataset: '/expenses', run: 1 } as never,
        ctx,
      ),
      syncEventLine({ type: 'no-token', userId: HOSTILE, entities: [HOSTILE] } as never, ctx),
      syncEventLine({ type: 'unknown-entity', userId: 'u', entity: HOSTILE } as never, ctx),
      syncEventLine({ type: 'lifecycle', userId: HOSTILE, event: HOSTILE, message: HOSTILE } as never, ctx),
      syncEventLine({ type: 'sync-failed', userId: HOSTILE, dataset: '/expenses', error: HOSTILE } as never, ctx),
    ];
    for (const line of lines) {
      assert.ok(line?.includes('\\u001b'), line);
      assert.doesNotMatch(line ?? '', CONTROL);
    }
  });
});
