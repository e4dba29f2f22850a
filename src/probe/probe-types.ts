import type { SettingKey } from '../settings/environments.js';

/** The parts of a report, in the order the probe looks at them. */
export type ProbeArea = 'reachability' | 'paths' | 'paging' | 'time' | 'limits' | 'errors' | 'webhooks';

/**
 * A habit of the service the spec does not show, by a stable name: the report names each one it
 * meets, and a program can look for them (`--json` `quirk`).
 */
export type ProbeQuirk =
  | 'base-url-without-version'
  | 'nested-path'
  | 'other-path'
  | 'path-not-found'
  | 'list-not-document'
  | 'limit-header-ignored'
  | 'clamped-page-size'
  | 'limit-400-above-max'
  | 'cursor-null'
  | 'cursor-empty'
  | 'cursor-single-use'
  | 'unknown-cursor-accepted'
  | 'whole-second-timestamps'
  | 'whole-minute-timestamps'
  | 'timestamps-with-offset'
  | 'timestamps-without-zone'
  | 'clock-skew'
  | 'rate-limit-headers'
  | 'rate-limited'
  | 'retry-after-missing'
  | 'html-errors'
  | 'text-errors'
  | 'custom-header-name'
  | 'verification-prefix'
  | 'iat-skew'
  | 'body-not-compact'
  | 'secret-of-another-environment';

/** A setting a finding implies, beside what the environment holds. */
export interface ImpliedSetting {
  key: SettingKey;
  /** The value the probe would store (`--write`). */
  value: string;
  /** What the environment holds now; undefined when it is not set (its default applies). */
  current?: string | undefined;
  /**
   * `set`: what is set (or the default, when nothing is) already fits what was found; `not-set`:
   * nothing is set and the default does not fit; `differs`: what is set does not fit.
   */
  state: 'set' | 'not-set' | 'differs';
  /** Without it a sync fails or loses data; otherwise it is advice (a rate to keep to, say). */
  required: boolean;
}

export interface ProbeFinding {
  area: ProbeArea;
  /** Stable within a report: `path.expense`, `page-size`, `lag`, `webhook.header`... */
  id: string;
  quirk?: ProbeQuirk | undefined;
  /** What was seen, in words (network text in it is quoted and cut short). */
  observed: string;
  /** The setting this implies, when one does. */
  setting?: ImpliedSetting | undefined;
  /** What stops a sync that no setting the probe can write fixes, and what to do. */
  problem?: string | undefined;
}

/** What the probe observed itself, for a program that wants the figures behind the words. */
export interface ProbeFacts {
  /** The page size with no `limit` header, or the least it is (`atLeast`: the whole list fit). */
  defaultPageSize?: { size: number; atLeast: boolean } | undefined;
  /** The largest page size accepted, and the smallest refused (400) or clamped, as far as found. */
  pageSize?: { accepted: number; refusedAbove?: number | undefined; clampedAt?: number | undefined } | undefined;
  /** How each last page seen ended: no cursor field, `cursor: null`, `cursor: ""`. */
  lastPage?: Array<'absent' | 'null' | 'empty'> | undefined;
  /** The server's clock minus ours, from its Date headers, in ms. */
  clockSkewMs?: number | undefined;
  /** The precision and zone of lastUpdatedDate, with one example. */
  timestamps?: { precision: string; zone: string; example: string; seen: number } | undefined;
  /** The rate the service states or was seen to enforce. */
  rateLimit?: { requests: number; windowSeconds: number; from: string } | undefined;
  /** 429 answers met, and how many said when to come back. */
  rateLimited?: { count: number; withRetryAfter: number; waitedMs: number } | undefined;
}

export interface ProbeReport {
  baseUrl: string;
  /** Requests made, never more than maxRequests. */
  requests: number;
  maxRequests: number;
  findings: ProbeFinding[];
  facts: ProbeFacts;
  /** What the request budget (or the wait budget) did not reach. */
  notProbed: string[];
  /** A 401 or 403: the token was refused and the probe stopped there. */
  authFailure?: { status: number; message: string } | undefined;
  /** No finding needs a setting that is not set, and none is a problem. */
  ready: boolean;
}
