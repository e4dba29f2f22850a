/**
 * Spec 5.2 as a receiver sees it: `ledgerhook listen` (the built CLI, spawned as a user would)
 * answers 400 where the sample receiver does (bad signature, expired, body changed) and 200 for
 * an authentic delivery, including a custom lifecycle event the catalogue does not know (6.2).
 * Tokens come from an independent JWT encoder, not from ledgerhook.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCli, type RunningCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { bodyHash, makeToken } from '../../packages/webhooks/test/independent-jwt.js';

const SECRET = 'whsec_spec_listener';
const HEADER = 'Service-Verification';
const nowSeconds = () => Math.floor(Date.now() / 1000);
const entityUpdate = JSON.stringify({ userId: 'user_1', type: 'ENTITY_UPDATE', entities: ['expense'] });
const customEvent = JSON.stringify({
  userId: 'user_1',
  type: 'LIFECYCLE_EVENT',
  event: 'MY_CUSTOM_EVENT',
  eventData: { arranged: 'with the API team' },
});

const token = (body: string, iat: number, secret = SECRET) =>
  makeToken({ claims: { iat, request_body_sha256: bodyHash(body) }, secret });

describe('spec 5.2: listen answers like the sample receiver', () => {
  let listen: RunningCli;
  let url: string;
  const post = async (body: string, jwt: string) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [HEADER]: jwt },
      body,
    });
    return { status: response.status, body: (await response.json()) as { error?: string } };
  };

  before(async () => {
    listen = startCli(['listen', '--port', '0', '--json', '--secret', SECRET]);
    const started = await listen.waitFor((line) => line?.kind === 'listening');
    url = started.url;
  });
  after(async () => {
    await listen.stop();
  });

  it('200 for an authentic, fresh delivery (step 5)', async () => {
    const answer = await post(entityUpdate, token(entityUpdate, nowSeconds()));
    assert.equal(answer.status, 200);
  });

  it('400 for a bad signature (step 2): another secret', async () => {
    const answer = await post(entityUpdate, token(entityUpdate, nowSeconds(), 'whsec_other'));
    assert.deepEqual([answer.status, answer.body.error], [400, 'bad_signature']);
  });

  it('400 for an expired token (step 3): now - iat equal to the 300 s tolerance, and far past it', async () => {
    for (const age of [300, 3600]) {
      const answer = await post(entityUpdate, token(entityUpdate, nowSeconds() - age));
      assert.deepEqual([answer.status, answer.body.error], [400, 'expired'], `age ${age}s`);
    }
  });

  it('400 for a changed body (step 4): one value changed, and the same JSON re-serialised', async () => {
    const jwt = token(entityUpdate, nowSeconds());
    const changed = entityUpdate.replace('user_1', 'user_2');
    const reformatted = JSON.stringify(JSON.parse(entityUpdate), null, 2);
    for (const body of [changed, reformatted, `${entityUpdate}\n`]) {
      const answer = await post(body, jwt);
      assert.deepEqual([answer.status, answer.body.error], [400, 'body_mismatch'], JSON.stringify(body));
    }
  });

  it('records every refused delivery as invalid with its code, and the authentic ones as valid', async () => {
    const record = await listen.waitFor(
      (line) => line?.kind === 'delivery' && line.verdict?.code === 'body_mismatch' && line.verdict?.status === 400,
    );
    assert.equal(record.verdict.valid, false);
    const expired = await listen.waitFor((line) => line?.kind === 'delivery' && line.verdict?.code === 'expired');
    assert.equal(expired.verdict.status, 400);
  });

  it('spec 6.2 "others can be arranged": 200 for an authentic MY_CUSTOM_EVENT, recorded with its name', async () => {
    const answer = await post(customEvent, token(customEvent, nowSeconds()));
    assert.equal(answer.status, 200);
    const record = await listen.waitFor((line) => line?.kind === 'delivery' && line.event === 'MY_CUSTOM_EVENT');
    assert.deepEqual([record.type, record.verdict.valid, record.verdict.status], ['LIFECYCLE_EVENT', true, 200]);
  });
});

describe('spec 6.2: verify accepts a custom event', () => {
  it('ledgerhook verify says a signed MY_CUSTOM_EVENT is authentic (exit 0)', async () => {
    const result = await runInProcess([
      'verify',
      '--data',
      customEvent,
      '--token',
      token(customEvent, nowSeconds()),
      '--secret',
      SECRET,
      '--json',
    ]);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.equal(report.authentic, true);
    assert.equal(typeof report.claims.iat, 'number');
  });
});
