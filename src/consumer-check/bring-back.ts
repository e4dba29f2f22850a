import { LedgerhookError } from '../errors.js';
import type { ConsumerRun } from './consumer-run.js';
import { sendCounted, settleRun, signedDelivery } from './consumer-run.js';
import { newTally } from './consumer-report.js';
import { DRIVEN_PATH, type Settled } from './settle.js';

/**
 * Before a case, after one that did not converge: every case starts from a store equal to the service,
 * so that none is charged with an earlier one's difference. The items the store lacks or holds stale
 * are changed again on the service and one delivery announces them: a consumer whose bug lost a change
 * (its own clock as lastUpdatedDate, an answer that landed late) reads them again. What cannot be
 * brought back so (an item the store keeps though it left the service, a copy stored twice, a consumer
 * that skips every delivery like one it has seen) leaves the store unequal: the case is then not run.
 */
export async function bringBack(run: ConsumerRun): Promise<Settled> {
  let stale: number[] = [];
  try {
    const now = run.compare(await run.options.state.read(run.options.signal), Number.POSITIVE_INFINITY);
    if (now.converged) return { ...now, waitedMs: 0 };
    const ids = now.difference.flatMap((d) => [...d.missing, ...d.different.map((entry) => entry.id)]);
    stale = [...new Set(ids.filter((id): id is number => typeof id === 'number'))];
  } catch (error) {
    // A state that cannot be read now is "not yet" here too; a stop is a stop.
    if (!(error instanceof LedgerhookError) || error.code === 'ERR_ABORTED') throw error;
  }
  if (stale.length > 0) run.service.mutate({ path: DRIVEN_PATH, updateIds: stale });
  // Its answers are not any case's: a consumer that refuses it simply stays unequal.
  await sendCounted(run, await signedDelivery(run), newTally());
  const settled = await settleRun(run);
  // The reads that delivery set off are over before the next case changes anything.
  await run.reads.idle(run.options.limits.settleMs);
  return settled;
}
