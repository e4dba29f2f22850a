import type { OutgoingDelivery } from '../delivery/build-delivery.js';
import type { CaseContext } from './consumer-cases.js';
import type { HeldRead } from './read-watch.js';
import type { Settled } from './settle.js';

/**
 * The race cases: the mock holds the answer to the consumer's read (its data read when the request
 * came) while the check changes the data and sends deliveries, then lets it go. The race happens on
 * every run, whatever the consumer's speed: it is made by the mock, not hoped for.
 *
 * Every change is to one PENDING expense, the one the held read carries: it is in every dataset of
 * expenses a consumer may keep, and an answer that predates its last change is stale wherever it lands.
 */

/** A delivery on its way: its answer is awaited later (a consumer may answer only once its read is done). */
function sending(ctx: CaseContext, delivery: OutgoingDelivery): Promise<void> {
  const answer = ctx.send(delivery);
  answer.catch(() => {});
  return answer;
}

interface Race {
  /** The expense every change of the case touches. */
  id: number;
  hold: HeldRead;
  /** The deliveries sent so far, answered or not. */
  sent: Array<Promise<void>>;
}

/**
 * Changes the expense, holds the consumer's next read and sends the delivery that asks for it. Resolves
 * once the read is held, or with undefined when the consumer made none within the settle time (noted;
 * the case then ends with the wait for convergence).
 */
async function holdRead(ctx: CaseContext): Promise<Race | undefined> {
  const id = ctx.pendingId();
  if (id === undefined) {
    ctx.note('the service had no PENDING expense to change, so no read was held');
    return undefined;
  }
  ctx.mutate({ updateIds: [id] });
  const hold = ctx.reads.holdNextRead();
  const sent = [sending(ctx, await ctx.delivery())];
  const held = await ctx.withinSettle(hold.held);
  if (held === undefined) {
    hold.release();
    ctx.note(
      'the consumer made no list request of expenses within the settle time after the delivery: no read was held',
    );
    await Promise.all(sent);
    return undefined;
  }
  return { id, hold, sent };
}

/** Another change of the expense, and the delivery that announces it, while the read is held. */
async function changeAndAnnounce(ctx: CaseContext, race: Race): Promise<void> {
  ctx.mutate({ updateIds: [race.id] });
  race.sent.push(sending(ctx, await ctx.delivery()));
}

/**
 * Answers the held read once the consumer is idle (its deliveries answered or waiting on the held read,
 * no other read running), or, when it read the dataset again meanwhile, once that newer read's answer
 * is in its store and any other read on its way (a later delivery's, set out late) has landed too: the
 * held, older answer then lands last. Then waits for every delivery's answer, and for the consumer to
 * be idle again: only then may an equal store mean converged.
 */
async function releaseLast(ctx: CaseContext, race: Race): Promise<void> {
  try {
    const landed = await ctx.reads.idle(ctx.settleMs, {
      hold: { read: race.hold, landed: async () => (await ctx.settle()).converged },
    });
    if (race.hold.beside() > 0) {
      await ctx.reads.idle(ctx.settleMs);
      ctx.note(
        landed
          ? 'the consumer read the same dataset again while its first read was held, and its store held the newer data before that read was answered'
          : 'the consumer read the same dataset again while its first read was held',
      );
    }
  } finally {
    race.hold.release();
  }
  await Promise.all(race.sent);
  await ctx.reads.idle(ctx.settleMs);
}

async function staleAfterChange(ctx: CaseContext): Promise<Settled> {
  const race = await holdRead(ctx);
  if (race) {
    const held = await race.hold.held;
    // What the held answer shows (the service now), before the change it will predate.
    const shown = held ? ctx.items(held) : [];
    ctx.mutate({ updateIds: [race.id] });
    race.hold.release();
    await Promise.all(race.sent);
    // The held answer in the store first: the next delivery must find that read over.
    const applied = held ? await ctx.settleDataset(held, shown) : undefined;
    if (applied && !applied.converged)
      ctx.note("the consumer's copy of the held read's dataset never equalled that read's answer");
    await ctx.send(await ctx.delivery());
  }
  return ctx.settle();
}

async function changeDuringFetch(ctx: CaseContext): Promise<Settled> {
  const race = await holdRead(ctx);
  if (race) {
    await changeAndAnnounce(ctx, race);
    await releaseLast(ctx, race);
  }
  return ctx.settle();
}

async function overlappingFetches(ctx: CaseContext): Promise<Settled> {
  const race = await holdRead(ctx);
  if (race) {
    await changeAndAnnounce(ctx, race);
    // The second delivery once the first is answered, or the consumer idle (it may answer after its read).
    await ctx.reads.idle(ctx.settleMs, { until: race.sent[1] });
    await changeAndAnnounce(ctx, race);
    await releaseLast(ctx, race);
  }
  return ctx.settle();
}

export const RACE_CASE_STEPS = {
  'stale-page-after-change': staleAfterChange,
  'change-during-fetch': changeDuringFetch,
  'overlapping-fetches': overlappingFetches,
} as const satisfies Record<string, (ctx: CaseContext) => Promise<Settled>>;
