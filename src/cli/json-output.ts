import type { LedgerhookError } from '../errors.js';
import type { CliContext } from './context.js';
import { withAdvice } from './error-advice.js';
import { exitCodeFor } from './exit-codes.js';
import { isoTime } from '../util/iso-time.js';

/**
 * The one `--json` contract (docs/json.md). A command that answers once records its result with
 * writeJson; the entry point prints it exactly once, as `{"ok": true, ...result}`, or on failure as
 * `{"ok": false, "error": {code, reason, message, exitCode}, ...what it had}`. A long-running command
 * (listen, worker, mock, inspect, sync --watch) prints JSON Lines instead: one event per line, each
 * with `kind` and `time`, and a failure ends the stream with a `kind: "error"` line.
 */
export interface JsonError {
  code: string;
  reason: string;
  message: string;
  exitCode: number;
}

/** The `error` member of the contract for a library error: its stable code and reason, the advice, the exit code. */
export function jsonError(error: LedgerhookError): JsonError {
  return {
    code: error.code,
    reason: error.details.reason ?? error.code.slice(4).toLowerCase(),
    message: withAdvice(error),
    exitCode: exitCodeFor(error.code),
  };
}

const documents = new WeakMap<CliContext, unknown>();
const streams = new WeakSet<CliContext>();

/** Records the command's result document; printed once, with `ok`, when the command ends. */
export function writeJson(ctx: CliContext, document: unknown): void {
  documents.set(ctx, document);
}

/** This command prints JSON Lines (see jsonLine): its outcome is a line, not a document. */
export function markJsonLines(ctx: CliContext): void {
  streams.add(ctx);
}

/**
 * One JSON Lines event: `kind` and `time` first. `fields` is the event without its discriminator
 * (a library event's `type` is its kind; a delivery's `type` is the webhook's and stays).
 */
export function jsonLine(kind: string, fields: object = {}): string {
  const { kind: _kind, time: _time, at: _at, ...rest } = fields as Record<string, unknown>;
  return JSON.stringify({ kind, time: isoTime(Date.now()), ...rest });
}

function body(document: unknown): Record<string, unknown> {
  if (document === undefined) return {};
  // A list is named, so that every document is an object with `ok` beside it.
  if (Array.isArray(document) || document === null || typeof document !== 'object') return { result: document };
  const { ok: _ok, error: _error, ...rest } = document as Record<string, unknown>;
  return rest;
}

/**
 * What the entry point prints on stdout for a `--json` run that has ended, or undefined for a JSON
 * Lines command that succeeded (its lines are already out).
 */
export function jsonOutcome(ctx: CliContext | undefined, error?: JsonError): string | undefined {
  if (ctx && streams.has(ctx)) return error ? `${jsonLine('error', { ok: false, error })}\n` : undefined;
  const result = body(ctx ? documents.get(ctx) : undefined);
  if (ctx) documents.delete(ctx);
  const document = error ? { ok: false, error, ...result } : { ok: true, ...result };
  // Refused while parsing flags (no command ran): one line, which reads as a document and as JSON Lines.
  return `${ctx ? JSON.stringify(document, null, 2) : JSON.stringify(document)}\n`;
}
