/**
 * probe/: `ledgerhook probe`, GET-only and bounded (probe-client.ts counts every request and
 * waits out 429/5xx within a budget), learning what the spec leaves open: where each entity is
 * (probe-paths.ts), page sizes (probe-paging.ts), last pages and cursors (probe-cursors.ts), time
 * precision, lag and the server clock (probe-time.ts), rate limits (probe-limits.ts), error bodies
 * (probe-errors.ts), captured webhooks (probe-webhooks.ts). Each finding's setting is compared with
 * the stored one (setting-fit.ts); probe-record.ts keeps what `--write` recorded.
 */
import { ENTITIES, findEntity } from '@ledgerhook/webhooks';
import { ProbeStopped } from './probe-client.js';
import { probeCursors, lastPageFinding, probeIncremental } from './probe-cursors.js';
import { errorFindings, provokeError } from './probe-errors.js';
import { limitFindings } from './probe-limits.js';
import { probePageSizes } from './probe-paging.js';
import { checkVersionedRoot, type Located, locate, pathFindings } from './probe-paths.js';
import { AuthRefused, type ListAnswer, ProbeRun } from './probe-run.js';
import { clockFinding, timeFindings } from './probe-time.js';
import { normalizeProbeOptions, type ProbeOptions, type ResolvedProbeOptions } from './probe-options.js';
import type { ProbeArea, ProbeFinding, ProbeReport } from './probe-types.js';
import { webhookFindings } from './probe-webhooks.js';
import { isReady } from './readiness.js';

const AREA_ORDER: readonly ProbeArea[] = ['reachability', 'paths', 'paging', 'time', 'limits', 'errors', 'webhooks'];

const STEPS = ['the expense list', 'the other entities', 'page sizes', 'incremental reads', 'cursors', 'an error body'];

/**
 * Learns how the service behaves where the spec leaves it open, with GET requests only and never
 * more than `maxRequests` of them: reachability and the token, where each entity's list is, page
 * sizes, how a last page ends, cursors, lastUpdatedDate's precision and the lag it calls for, the
 * server's clock, its rate limits and error bodies; with `captures`, its webhooks. Every finding says
 * what was seen and the setting it implies, against what the environment has. Throws only when the
 * service cannot be reached at all (ERR_NETWORK) or the run is stopped (ERR_ABORTED).
 */
export async function probeService(input: ProbeOptions): Promise<ProbeReport> {
  const options = normalizeProbeOptions(input);
  const run = new ProbeRun(options);
  const located: Located[] = [];
  const state: {
    list?: { path: string; unlimited?: ListAnswer | undefined };
    limit?: number;
    lag?: { stamp: string; status: number } | undefined;
  } = {};
  const done = new Set<string>();
  let authFailure: ProbeReport['authFailure'];
  let stoppedWhy: string | undefined;

  const step = async (name: string, work: () => Promise<void>): Promise<boolean> => {
    if (stoppedWhy !== undefined || authFailure !== undefined) return false;
    try {
      await work();
      done.add(name);
      return true;
    } catch (error) {
      if (error instanceof AuthRefused) {
        authFailure = { status: error.status, message: authMessage(error) };
        run.add({
          area: 'reachability',
          id: 'token',
          observed: authFailure.message,
          problem: 'check the access token (and that it may read this environment)',
        });
      } else if (error instanceof ProbeStopped) stoppedWhy = error.why;
      else throw error;
      return false;
    }
  };
  const useList = (entry: Located) => {
    if (state.list === undefined && entry.path !== undefined && entry.answer?.page && entry.entity.paginated)
      state.list = { path: entry.path };
  };

  await step('the expense list', async () => {
    const expense = findEntity('expense');
    if (!expense) return;
    // Asked without a limit header: the service's default page size shows.
    let first = await locate(run, expense, {});
    if (first.path === undefined) {
      const other = await locate(run, ENTITIES.find((entity) => entity.name === 'invoice') ?? expense);
      if (other.path === undefined && (await checkVersionedRoot(run, first))) first = await locate(run, expense, {});
      else located.push(other);
    }
    located.push(first);
    if (first.path !== undefined && first.answer?.page) state.list = { path: first.path, unlimited: first.answer };
  });
  const others = async () => {
    for (const entity of ENTITIES) {
      if (located.some((entry) => entry.entity.name === entity.name)) continue;
      const entry = await locate(run, entity);
      located.push(entry);
      useList(entry);
    }
  };
  if (state.list === undefined) await step('the other entities', others);
  const list = state.list;
  if (list) {
    await step('page sizes', async () => {
      state.limit = await probePageSizes(run, list.path, list.unlimited);
    });
    await step('incremental reads', async () => {
      state.lag = await probeIncremental(run, list.path, state.limit ?? 1);
    });
    await step('cursors', async () => {
      const issued = await cursorToReuse(run, list.path, list.unlimited);
      if (issued) await probeCursors(run, list.path, issued);
      else
        run.add({ area: 'paging', id: 'cursor', observed: `${list.path} has a single item or none: no cursor to try` });
    });
  }
  if (!done.has('the other entities')) await step('the other entities', others);
  await step('an error body', () => provokeError(run));

  const why = authFailure ? 'the token was refused' : (stoppedWhy ?? 'no list answered');
  return report(run, options, {
    located,
    authFailure,
    notProbed: STEPS.filter((name) => !done.has(name)).map((name) => `${name} (${why})`),
    lag: state.lag,
  });
}

/** A cursor to send twice: the first read's (no limit header), else one asked for with limit 1. */
async function cursorToReuse(run: ProbeRun, path: string, unlimited: ListAnswer | undefined) {
  if (unlimited?.page?.cursor !== undefined) return { cursor: unlimited.page.cursor };
  const small = await run.get(path, { limit: 1 });
  return small.page?.cursor === undefined ? undefined : { cursor: small.page.cursor, limit: 1 };
}

function authMessage(error: AuthRefused): string {
  const said = error.description.summary ? ` (${JSON.stringify(error.description.summary)})` : '';
  return error.status === 401
    ? `GET ${error.path} answered 401${said}: the access token was rejected`
    : `GET ${error.path} answered 403${said}: the access token is not allowed to read it`;
}

async function report(
  run: ProbeRun,
  options: ResolvedProbeOptions,
  outcome: {
    located: Located[];
    authFailure: ProbeReport['authFailure'];
    notProbed: string[];
    lag: { stamp: string; status: number } | undefined;
  },
): Promise<ProbeReport> {
  const reached = outcome.located.some((entry) => entry.path !== undefined);
  if (!outcome.authFailure) reachability(run, outcome.located, reached);
  if (outcome.located.length > 0) pathFindings(run, outcome.located);
  lastPageFinding(run);
  timeFindings(run, outcome.lag);
  clockFinding(run);
  limitFindings(run);
  errorFindings(run);
  if (options.webhooks)
    for (const finding of await webhookFindings(options.webhooks.captures, {
      settings: run.settings,
      secrets: options.webhooks.secrets,
      environment: options.webhooks.environment,
    }))
      run.add(finding);
  // By area, in the order the report reads; within one, in the order found.
  const findings = [...run.findings].sort((a, b) => AREA_ORDER.indexOf(a.area) - AREA_ORDER.indexOf(b.area));
  return {
    baseUrl: run.baseUrl,
    requests: run.client.requests,
    maxRequests: options.limits.maxRequests,
    findings,
    facts: run.facts,
    notProbed: outcome.notProbed,
    ...(outcome.authFailure ? { authFailure: outcome.authFailure } : {}),
    ready: isReady(findings, outcome.authFailure),
  };
}

/** The base URL answers (and is the one to keep), or every list 404s there. */
function reachability(run: ProbeRun, located: readonly Located[], reached: boolean): void {
  if (located.length === 0) return;
  if (!reached && located.every((entry) => entry.tried.every((attempt) => attempt.status === 404))) {
    run.add({
      area: 'reachability',
      id: 'base-url',
      observed: `every list tried answered 404 at ${run.baseUrl}`,
      problem: `the base URL is probably wrong: it is the API root, e.g. https://sandbox.example.com/rest/v5 (the spec's samples use {base_url}/rest/v5)`,
    });
    return;
  }
  if (run.findings.some((finding: ProbeFinding) => finding.id === 'base-url')) return;
  const first = located.find((entry) => entry.path !== undefined);
  run.add({
    area: 'reachability',
    id: 'base-url',
    observed: `${run.baseUrl} answers and the access token is accepted (GET ${first?.path} → ${first?.answer?.status})`,
    setting: run.imply('baseUrl', run.baseUrl, true),
  });
}
