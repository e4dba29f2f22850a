import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { promptHidden } from '../../src/cli/prompt-hidden.js';

/** A fake terminal: records raw-mode switches and everything written back to the screen. */
function terminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true, rawModes: [] as boolean[] });
  const setRawMode = (mode: boolean) => input.rawModes.push(mode);
  let screen = '';
  const output = new PassThrough();
  output.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
  });
  return { input: Object.assign(input, { setRawMode }), output, screen: () => screen };
}

describe('promptHidden', () => {
  for (const [name, typed, expected] of [
    ['a plain secret', 'whsec_abc123\r', 'whsec_abc123'],
    ['with a backspace', 'whsec_abX\u007fc\r', 'whsec_abc'],
    ['finished by a newline', 'top secret\n', 'top secret'],
    ['finished by Ctrl-D', 's3cr3t\u0004', 's3cr3t'],
  ] as const) {
    it(`reads ${name} without echoing a character`, async () => {
      const t = terminal();
      const answer = promptHidden('webhookSecret for sandbox (input hidden): ', t.input, t.output);
      t.input.write(typed);
      assert.equal(await answer, expected);
      assert.equal(t.screen(), 'webhookSecret for sandbox (input hidden): \n');
      assert.deepEqual(t.input.rawModes, [true, false], 'raw mode on while typing, off afterwards');
    });
  }

  it('cancels on Ctrl-C with ERR_ABORTED, and on Ctrl-D at an empty line', async () => {
    for (const key of ['\u0003', '\u0004']) {
      const t = terminal();
      const answer = promptHidden('token: ', t.input, t.output);
      t.input.write(key);
      await assert.rejects(answer, { code: 'ERR_ABORTED' });
      assert.deepEqual(t.input.rawModes, [true, false]);
    }
  });
});
