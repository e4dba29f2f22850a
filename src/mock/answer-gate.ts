import { filterOf } from './paging.js';
import { type ListEnvelope, MOCK_BASE_PATH, type MockRequest, type MockResponse } from './mock-types.js';

/** A list answer of the mock on its way out: its data were read when its request arrived. */
export interface ListAnswer {
  /** The entity the path serves (the catalogue's name). */
  entity: string;
  /** Under the API root, e.g. /expenses. */
  path: string;
  /** The query's parameters sorted by name: with the path, they name the dataset. */
  filter: Array<[string, string]>;
  /** The request carried no cursor: the first page of a read. */
  firstPage: boolean;
  /** The lastUpdatedDate header the request sent, if any. */
  since: string | undefined;
  envelope: ListEnvelope;
}

/** One answer held back: `held` resolves once an answer is held (undefined: released before one came). */
export interface AnswerHold {
  held: Promise<ListAnswer | undefined>;
  /** Sends the held answer (or gives up waiting for one). */
  release(): void;
}

interface PendingHold {
  match: (answer: ListAnswer) => boolean;
  take: (answer: ListAnswer) => Promise<void>;
}

/**
 * The seam through which a driver (check-consumer) watches the mock's list answers and holds one back.
 * An answer's data are read when its request arrives and it is sent only when released: a change made
 * meanwhile is one the answer predates, every time, with no timing involved. Nothing watching and
 * nothing to hold, an answer passes at once.
 */
export class AnswerGate {
  readonly #entityFor: (path: string) => string | undefined;
  readonly #watchers = new Set<(answer: ListAnswer) => void>();
  readonly #pending = new Set<PendingHold>();
  readonly #releases = new Set<() => void>();

  constructor(entityFor: (path: string) => string | undefined) {
    this.#entityFor = entityFor;
  }

  /** Calls `listener` with every list answer as it leaves (before any hold); returns the unsubscribe. */
  watch(listener: (answer: ListAnswer) => void): () => void {
    this.#watchers.add(listener);
    return () => this.#watchers.delete(listener);
  }

  /** Holds the next list answer `match` accepts until `release()`. */
  holdNext(match: (answer: ListAnswer) => boolean): AnswerHold {
    let resolveHeld: (answer: ListAnswer | undefined) => void = () => {};
    const held = new Promise<ListAnswer | undefined>((resolve) => {
      resolveHeld = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = () => {
        this.#pending.delete(pending);
        this.#releases.delete(release);
        resolveHeld(undefined);
        resolve();
      };
    });
    const pending: PendingHold = {
      match,
      take: (answer) => {
        this.#pending.delete(pending);
        resolveHeld(answer);
        return released;
      },
    };
    this.#pending.add(pending);
    this.#releases.add(release);
    return { held, release };
  }

  /** Releases every hold (a driver that stops leaves nothing waiting). */
  releaseAll(): void {
    for (const release of [...this.#releases]) release();
  }

  /** The service's side: resolves when the answer may be sent. */
  async pass(request: MockRequest, url: URL, response: MockResponse): Promise<void> {
    if (this.#watchers.size === 0 && this.#pending.size === 0) return;
    const answer = listAnswerOf(request, url, response, this.#entityFor);
    if (!answer) return;
    for (const watcher of this.#watchers) watcher(answer);
    for (const pending of this.#pending) if (pending.match(answer)) return pending.take(answer);
  }
}

/** The answer to a list request as a ListAnswer, or undefined for anything else (an error, a settings object). */
function listAnswerOf(
  request: MockRequest,
  url: URL,
  response: MockResponse,
  entityFor: (path: string) => string | undefined,
): ListAnswer | undefined {
  const envelope = response.body as ListEnvelope | null;
  if (response.status !== 200 || !Array.isArray(envelope?.data)) return undefined;
  const path = url.pathname.slice(MOCK_BASE_PATH.length);
  const entity = entityFor(path);
  if (entity === undefined) return undefined;
  const cursor = request.headers.cursor;
  return {
    entity,
    path,
    filter: filterOf(url.searchParams),
    firstPage: cursor === undefined || cursor === '',
    since: request.headers.lastupdateddate || undefined,
    envelope,
  };
}
