import type { EnvironmentSettings } from '../settings/environments.js';
import { isObject } from '../util/is-object.js';
import type { ProbeFinding, ProbeReport } from './probe-types.js';

/**
 * What `probe --write` keeps beside the settings, per environment: when it ran, against which base
 * URL, what it wrote, and in short what each finding was (its quirk and the setting it implied), so
 * that the next probe says what changed since.
 */
export interface ProbeRecord {
  at: string;
  baseUrl: string;
  wrote: Record<string, string>;
  findings: Array<{ id: string; summary: string }>;
}

/** One finding in short: its quirk and the setting it implies (`whole-second-timestamps, lag 1s`). */
function summary(finding: ProbeFinding): string {
  const parts = [
    finding.quirk,
    finding.setting ? `${finding.setting.key} ${finding.setting.value}` : undefined,
    finding.problem ? 'a problem' : undefined,
  ];
  return parts.filter((part) => part !== undefined).join(', ') || 'nothing to set';
}

export function probeRecord(report: ProbeReport, wrote: EnvironmentSettings, at: string): ProbeRecord {
  const written: Record<string, string> = {};
  for (const [key, value] of Object.entries(wrote)) if (value !== undefined) written[key] = value;
  return {
    at,
    baseUrl: report.baseUrl,
    wrote: written,
    findings: report.findings.map((finding) => ({ id: finding.id, summary: summary(finding) })),
  };
}

const MAX_TEXT = 500;
const isText = (value: unknown): value is string => typeof value === 'string' && value.length <= MAX_TEXT;

/** A record as read back from the settings file (which anyone may have edited): checked, or none. */
export function readProbeRecord(value: unknown): ProbeRecord | undefined {
  if (!isObject(value) || !isText(value.at) || !isText(value.baseUrl) || !isObject(value.wrote)) return undefined;
  if (!Array.isArray(value.findings) || value.findings.length > 1000) return undefined;
  const findings = value.findings.filter(
    (entry): entry is { id: string; summary: string } => isObject(entry) && isText(entry.id) && isText(entry.summary),
  );
  const wrote = Object.fromEntries(Object.entries(value.wrote).filter(([key, text]) => isText(key) && isText(text)));
  return { at: value.at, baseUrl: value.baseUrl, wrote: wrote as Record<string, string>, findings };
}

/** A finding that is new, gone, or different from what the last recorded probe found. */
export interface ProbeChange {
  id: string;
  before?: string | undefined;
  after?: string | undefined;
}

/** What changed since the last recorded probe of the environment, finding by finding. */
export function changesSince(previous: ProbeRecord, report: ProbeReport): ProbeChange[] {
  const before = new Map(previous.findings.map((entry) => [entry.id, entry.summary]));
  const after = new Map(report.findings.map((finding) => [finding.id, summary(finding)]));
  const changes: ProbeChange[] = [];
  for (const [id, now] of after) if (before.get(id) !== now) changes.push({ id, before: before.get(id), after: now });
  for (const [id, was] of before) if (!after.has(id)) changes.push({ id, before: was });
  return changes;
}
