import type pg from 'pg';
import type { DatasetRef, StoredItem } from './dataset-store.js';

/** The part of pg's connection a COPY needs (pg runs COPY only through a submittable). */
interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

/**
 * `COPY ... FROM STDIN` with one chunk of text-format rows, through pg's submittable protocol (no
 * extra package). Resolves with the number of rows copied; rejects with Postgres's error.
 */
export function copyIn(client: pg.ClientBase, text: string, data: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    let failure: Error | undefined;
    let rows = 0;
    const submittable = {
      submit(connection: CopyConnection) {
        connection.query(text);
      },
      handleCopyInResponse(connection: CopyConnection) {
        if (data.length > 0) connection.sendCopyFromChunk(data);
        connection.endCopyFrom();
      },
      handleCommandComplete(message: { text?: string }) {
        rows = Number(/^COPY (\d+)/.exec(message.text ?? '')?.[1] ?? 0);
      },
      handleError(error: Error) {
        failure = error;
      },
      handleReadyForQuery() {
        if (failure) reject(failure);
        else resolve(rows);
      },
      handleRowDescription() {},
      handleDataRow() {},
      handlePortalSuspended() {},
      handleEmptyQuery() {},
      handleCopyData() {},
    };
    client.query(submittable as unknown as pg.Submittable);
  });
}

/** One field of COPY's text format: backslash, tab, newline and carriage return escaped. */
export function copyField(value: string): string {
  return value.replace(/[\\\t\n\r]/g, (char) =>
    char === '\\' ? '\\\\' : char === '\t' ? '\\t' : char === '\n' ? '\\n' : '\\r',
  );
}

/** Inserts items that are known not to exist yet (no conflict handling: the caller made sure). */
export async function copyItems(client: pg.ClientBase, ref: DatasetRef, items: readonly StoredItem[]): Promise<number> {
  const prefix = `${copyField(ref.userId)}\t${copyField(ref.dataset)}\t`;
  let text = '';
  for (const item of items) text += `${prefix}${copyField(String(item.id))}\t${copyField(JSON.stringify(item))}\n`;
  return copyIn(
    client,
    'COPY ledgerhook_items (user_id, dataset, item_id, item) FROM STDIN',
    Buffer.from(text, 'utf8'),
  );
}
