/**
 * A list-endpoint client written from spec 4.3 alone (fetch, no ledgerhook code): it keeps a
 * local copy of one dataset and fetches only what changed, the way the spec tells subscribers to.
 */
export interface SpecClientState {
  items: Map<number, Record<string, unknown>>;
  lastUpdatedDate?: string;
  pages: number;
}

export async function specSync(options: {
  baseUrl: string;
  token: string;
  path: string;
  query?: string;
  limit: number;
  state?: SpecClientState;
}): Promise<SpecClientState> {
  const state: SpecClientState = options.state ?? { items: new Map(), pages: 0 };
  let cursor: string | undefined;
  let nextLastUpdatedDate: string | undefined;
  const deleted = new Set<number>();
  const changed: Array<Record<string, unknown>> = [];
  const seenCursors = new Set<string>();
  do {
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.token}`,
      'content-type': 'application/json',
      limit: String(options.limit),
    };
    if (cursor) headers.cursor = cursor;
    if (state.lastUpdatedDate) headers.lastUpdatedDate = state.lastUpdatedDate;
    const response = await fetch(`${options.baseUrl}${options.path}${options.query ? `?${options.query}` : ''}`, {
      headers,
    });
    if (response.status !== 200)
      throw new Error(`GET ${options.path} answered ${response.status}: ${await response.text()}`);
    const page = (await response.json()) as {
      data: Array<Record<string, unknown>>;
      lastUpdatedDate: string;
      cursor?: string;
      deletedIds?: number[];
    };
    if (!Array.isArray(page.data) || typeof page.lastUpdatedDate !== 'string') throw new Error('not an envelope');
    if (page.data.length > options.limit)
      throw new Error(`page of ${page.data.length} items with limit ${options.limit}`);
    changed.push(...page.data);
    for (const id of page.deletedIds ?? []) deleted.add(id);
    nextLastUpdatedDate = page.lastUpdatedDate;
    state.pages += 1;
    cursor = page.cursor;
    if (cursor !== undefined) {
      if (seenCursors.has(cursor)) throw new Error('cursor loop');
      seenCursors.add(cursor);
    }
  } while (cursor !== undefined);
  if (!state.lastUpdatedDate) state.items.clear();
  for (const id of deleted) state.items.delete(id);
  for (const item of changed) state.items.set(item.id as number, item);
  state.lastUpdatedDate = nextLastUpdatedDate;
  return state;
}

export function sortedItems(state: SpecClientState): Array<Record<string, unknown>> {
  return [...state.items.values()].sort((a, b) => (a.id as number) - (b.id as number));
}
