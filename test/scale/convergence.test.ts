import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DATASETS, startMultiUserApi, type Backend } from './helpers/multi-user-api.js';
import { startRig, sendWebhook } from './helpers/scale-rig.js';
import { servicesSkip } from './helpers/services.js';

const skip = await servicesSkip();
// 16 users by default: every guarantee below (a killed worker mid-run, its job taken over, coalesced
// bursts, no dataset run twice at once) holds at any count; 200 only in the soak tier (LEDGERHOOK_SOAK=1).
const USERS = Number(process.env.LEDGERHOOK_SOAK === '1' ? 200 : 16);

async function converge(backend: Backend): Promise<void> {
  const api = await startMultiUserApi({ backend, users: USERS, items: 25, latencyMs: 3 });
  const rig = await startRig(`conv-${backend}`, { baseUrl: api.baseUrl, tokens: api.tokens });
  try {
    const first = await rig.startWorker();
    await rig.startWorker();
    let enqueued = 0;
    const sendAll = async () => {
      const statuses = await Promise.all(
        api.userIds.map((userId) => sendWebhook(rig.url, userId, ['expense', 'invoice'])),
      );
      assert.ok(
        statuses.every((status) => status === 200),
        `every webhook answered 200: ${statuses}`,
      );
      enqueued += api.userIds.length * DATASETS.length;
    };
    await sendAll();
    // SIGKILL a worker in the middle of a run, and replace it.
    await first.waitFor((line) => line?.kind === 'sync-start');
    first.child.kill('SIGKILL');
    await rig.startWorker();
    // Change every user's data and tell the receivers, twice (the second burst coalesces).
    for (const userId of api.userIds)
      for (const path of DATASETS) api.mutate(userId, path, { create: 2, update: 2, delete: 1 });
    await sendAll();
    await sendAll();
    await rig.drained(enqueued);

    const status = await rig.status();
    assert.equal(status.failed, 0, 'no job failed');
    for (const userId of api.userIds)
      for (const path of DATASETS)
        assert.deepEqual(await rig.rows(userId, path), api.truth(userId, path), `${userId} ${path} equals the server`);
    assert.deepEqual(api.overlaps(), [], 'no dataset ever had two runs at once');
    const killedRuns = rig.workers[0]!.lines.filter((line) => line.includes('"kind":"sync-start"')).length;
    assert.ok(killedRuns > 0, 'the killed worker was mid-run');
    const recovered = rig.workers
      .slice(1)
      .reduce((sum, worker) => sum + worker.lines.filter((line) => line.includes('"kind":"stalled"')).length, 0);
    assert.ok(recovered > 0, "another worker picked up the killed worker's job");
    // --json lines are shaped like listen --sync's: the run's summary beside kind, userId and entity.
    const done = JSON.parse(rig.workers[1]!.lines.find((line) => line.includes('"kind":"sync-done"'))!);
    assert.deepEqual(Object.keys(done).sort(), [
      'dataset',
      'deleted',
      'entity',
      'kind',
      'lastUpdatedDate',
      'mode',
      'pages',
      'run',
      'time',
      'total',
      'upserted',
      'userId',
    ]);
    // SIGTERM: a graceful stop with a summary line, exit 0.
    for (const worker of rig.workers.slice(1)) {
      assert.deepEqual(await worker.stop('SIGTERM'), { code: 0, signal: null });
      assert.match(worker.lines.at(-1) ?? '', /"kind":"summary"/);
    }
  } finally {
    await rig.close();
    await api.close();
  }
}

describe(`${USERS} users x 2 datasets through listen --queue and workers, one SIGKILLed`, { skip }, () => {
  // Both servers at once: each has its own queue, schema and processes.
  it('converges against the mock and against an independent server, never two runs of a dataset at once', {
    timeout: 120_000,
  }, async () => {
    await Promise.all([converge('mock'), converge('independent')]);
  });
});
