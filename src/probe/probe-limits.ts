import { formatRateLimit, parseRateLimit, type RateLimit } from '../settings/setting-values.js';
import type { RateLimitHit } from './probe-client.js';
import type { ProbeRun } from './probe-run.js';

type Headers = Record<string, string>;

const WINDOW_WORDS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86_400 };

/** A rate the rateLimit setting can hold (whole numbers, 1 to 999999999 each), or none. */
function usable(rate: RateLimit): RateLimit | undefined {
  return typeof parseRateLimit(formatRateLimit(rate)) === 'string' ? undefined : rate;
}

const firstNumber = (text: string | undefined) => {
  const match = /\d+/.exec(text ?? '');
  return match ? Number(match[0]) : undefined;
};

/** `100;w=60`, `"default";q=100;w=60` (the IETF RateLimit-Policy field), or undefined. */
function policy(text: string | undefined): RateLimit | undefined {
  if (text === undefined) return undefined;
  const first = text.split(',')[0] ?? '';
  const window = /;\s*w=(\d+)/.exec(first)?.[1];
  const quota = /;\s*q=(\d+)/.exec(first)?.[1] ?? /^\s*(\d+)/.exec(first)?.[1];
  return usable({ requests: Number(quota), windowSeconds: Number(window) });
}

/**
 * The rate a service states in its headers, with where it was read: RateLimit-Policy (IETF),
 * X-RateLimit-Limit-Minute and the like (Kong), or a limit with a reset: the window is then the
 * longest reset seen (a reset is seconds from now, or an epoch time when it is that large).
 */
export function statedRate(
  answers: ReadonlyArray<{ headers: Headers; receivedAt: number }>,
): (RateLimit & { from: string }) | undefined {
  for (const { headers } of answers) {
    for (const name of ['ratelimit-policy', 'x-ratelimit-policy', 'ratelimit-limit', 'x-ratelimit-limit']) {
      const stated = policy(headers[name]);
      if (stated) return { ...stated, from: `${name}: ${headers[name]}` };
    }
    for (const [name, value] of Object.entries(headers)) {
      const unit = /^x-ratelimit-limit-(second|minute|hour|day)$/.exec(name)?.[1];
      const stated = unit
        ? usable({ requests: firstNumber(value) ?? 0, windowSeconds: WINDOW_WORDS[unit] ?? 60 })
        : undefined;
      if (stated) return { ...stated, from: `${name}: ${value}` };
    }
  }
  let limit: { requests: number; name: string } | undefined;
  let window = 0;
  for (const { headers, receivedAt } of answers) {
    for (const prefix of ['x-ratelimit', 'ratelimit']) {
      const requests = firstNumber(headers[`${prefix}-limit`]);
      if (requests) limit ??= { requests, name: `${prefix}-limit` };
      const reset = firstNumber(headers[`${prefix}-reset`]);
      if (reset === undefined) continue;
      const date = Date.parse(headers.date ?? '');
      const seconds = reset > 1e9 ? reset - (Number.isNaN(date) ? receivedAt : date) / 1000 : reset;
      window = Math.max(window, Math.ceil(seconds));
    }
  }
  const stated = limit ? usable({ requests: limit.requests, windowSeconds: window }) : undefined;
  return stated && limit ? { ...stated, from: `${limit.name} ${limit.requests}, reset within ${window} s` } : undefined;
}

/** A rate from the first 429: the requests that went through before it, over that time and its Retry-After. */
export function seenRate(hits: readonly RateLimitHit[]): RateLimit | undefined {
  const hit = hits.find((candidate) => candidate.requestsBefore > 0);
  if (!hit) return undefined;
  const windowSeconds = Math.max(1, Math.round((hit.elapsedMs + (hit.retryAfterMs ?? 0)) / 1000));
  return usable({ requests: hit.requestsBefore, windowSeconds });
}

/** The rate-limit headers and 429s met, and the rate sync and the workers should keep to. */
export function limitFindings(run: ProbeRun): void {
  const answers = run.client.answers;
  const stated = statedRate(answers);
  const limited = run.client.rateLimitedSummary();
  run.facts.rateLimited = limited;
  const named = [...new Set(answers.flatMap((answer) => Object.keys(answer.headers)))].filter((name) =>
    /ratelimit/.test(name),
  );
  if (stated) {
    run.facts.rateLimit = stated;
    run.add({
      area: 'limits',
      id: 'rate-limit',
      quirk: 'rate-limit-headers',
      observed: `the service states its rate limit (${stated.from}): ${stated.requests} requests per ${stated.windowSeconds} s`,
      setting: run.imply('rateLimit', formatRateLimit(stated), false),
    });
  } else if (named.length > 0)
    run.add({
      area: 'limits',
      id: 'rate-limit',
      quirk: 'rate-limit-headers',
      observed: `the service sends ${named.join(', ')} but no window to read a rate from; set rateLimit once you know it`,
    });
  if (limited) {
    const seen = stated ? undefined : seenRate(run.client.rateLimits);
    if (seen) run.facts.rateLimit = { ...seen, from: 'the first 429' };
    const missing = limited.count - limited.withRetryAfter;
    run.add({
      area: 'limits',
      id: 'rate-limited',
      quirk: missing > 0 ? 'retry-after-missing' : 'rate-limited',
      observed: `${limited.count} answer${limited.count === 1 ? ' was' : 's were'} 429${missing > 0 ? `, ${missing} without Retry-After (sync then backs off, 250 ms doubling, within --max-wait)` : ', each with Retry-After'}; waited ${(limited.waitedMs / 1000).toFixed(1)} s${seen ? `; ${seen.requests} requests went through in the ${seen.windowSeconds} s before the first one` : ''}`,
      ...(seen ? { setting: run.imply('rateLimit', formatRateLimit(seen), false) } : {}),
    });
  }
  if (!stated && named.length === 0 && !limited)
    run.add({
      area: 'limits',
      id: 'rate-limit',
      observed: `no rate-limit headers and no 429 in ${answers.length} answers: no rate is assumed (a 429 is waited out, honouring Retry-After)`,
    });
}
