import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withAdvice } from '../../src/cli/error-advice.js';
import { DEFAULT_MOCK_PORT } from '../../src/defaults.js';
import { LedgerhookError } from '../../src/errors.js';
import { networkError } from '../../src/http/network-error.js';

describe('advice keyed on typed reasons', () => {
  it("nothing on the local environment's address: start the mock; elsewhere: the sentence alone", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const local = networkError(refused, 'GET', `http://127.0.0.1:${DEFAULT_MOCK_PORT}/rest/v5/expenses`);
    assert.equal(local.details.reason, 'connection_refused');
    assert.match(withAdvice(local), /nothing is listening on 127\.0\.0\.1:4010.*start it with `ledgerhook mock`/);
    const other = networkError(refused, 'GET', 'http://127.0.0.1:3999/hooks');
    assert.equal(withAdvice(other), 'nothing is listening on 127.0.0.1:3999 (connection refused)');
  });

  it("an error naming no reason gets its code's generic one", () => {
    assert.equal(new LedgerhookError('ERR_IO', 'x').details.reason, 'io_failed');
    assert.equal(new LedgerhookError('ERR_CHECK_FAILED', 'x').details.reason, 'check_failed');
  });
});
