import { roundMs } from '../util/percentiles.js';
import { CONNECTION_HEADERS } from '../util/header-name.js';
import type { ForwardResult, HeaderRecord } from '../delivery/received-delivery.js';
import type { Route } from './routes.js';

/** The injected edge that passes an accepted delivery on to the developer's app. */
export interface ForwardEdge {
  url: string;
  /**
   * Resolves with the app's answer (its body when it was small enough to relay whole); throws (with a
   * message for people) when the app cannot be reached.
   */
  send(
    body: Buffer,
    headers: Record<string, string>,
  ): Promise<{
    status: number;
    latencyMs: number;
    body?: Buffer | undefined;
    contentType?: string | undefined;
    /** The app's answer was too large to relay whole (it is then not relayed at all). */
    bodyTooLarge?: boolean | undefined;
  }>;
}

/** A route with the edge that reaches it. */
export interface ForwardRoute extends Route {
  edge: ForwardEdge;
}

export type Forwarded = {
  result: ForwardResult;
  answer?: { body: Buffer; contentType?: string | undefined; tooLarge: boolean } | undefined;
};

const HOP_BY_HOP = new Set(CONNECTION_HEADERS);

/** The delivery's own headers, minus the hop-by-hop ones: the token goes as it came (never re-signed here). */
export function forwardHeaders(headers: HeaderRecord): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.has(name)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** One attempt at one route: the app's answer, or why it could not be reached (never throws). */
export async function forwardTo(
  edge: ForwardEdge,
  body: Buffer,
  headers: Record<string, string>,
  route?: string,
): Promise<Forwarded> {
  const named = route === undefined ? {} : { route };
  try {
    const answer = await edge.send(body, headers);
    return {
      result: { ...named, url: edge.url, status: answer.status, latencyMs: roundMs(answer.latencyMs) },
      answer: {
        body: answer.body ?? Buffer.alloc(0),
        contentType: answer.contentType,
        tooLarge: answer.bodyTooLarge === true,
      },
    };
  } catch (error) {
    return { result: { ...named, url: edge.url, error: error instanceof Error ? error.message : String(error) } };
  }
}

/** A forward that the app took: 2xx. */
export const forwardSucceeded = (result: ForwardResult) =>
  result.error === undefined && result.status !== undefined && result.status >= 200 && result.status < 300;

/** Worth another attempt: unreachable, timed out, or a 5xx (a 4xx is the app's considered answer). */
export const forwardRetryable = (result: ForwardResult) =>
  result.error !== undefined || result.status === undefined || result.status >= 500;

/**
 * What the sender gets when several routes took a delivery (forwarded at once): 200 when every app
 * answered 2xx, else 502; the body lists each route's answer (the apps' bodies are not relayed).
 */
export function combinedAnswer(results: readonly ForwardResult[]): { status: number; body: unknown } {
  const routes = results.map(({ route, url, status, error }) => ({ route, url, status, error }));
  return results.every(forwardSucceeded)
    ? { status: 200, body: { received: true, routes } }
    : { status: 502, body: { error: 'forward_failed', message: 'not every route answered 2xx', routes } };
}
