import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type pg from 'pg';

/** The part of pg's connection a COPY needs (pg runs COPY only through a submittable). */
interface CopyConnection {
  stream: Writable;
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
}

/**
 * One `COPY ... FROM STDIN` kept open across pages, through pg's submittable protocol (no extra
 * package). Postgres parses and stores each page while the sync fetches the next: one statement
 * for the whole load, not one per page. Writes wait for the socket to drain, so memory stays at a
 * page or two however slow the server is. The connection runs nothing else until `end`.
 */
export class CopyStream {
  #connection: CopyConnection | undefined;
  #failure: Error | undefined;
  /** CopyDone was sent: the server ends the COPY itself (and answers with its outcome). */
  #ended = false;
  #rows = 0;
  readonly #done: Promise<number>;

  private constructor(done: Promise<number>) {
    this.#done = done;
    this.#done.catch(() => {}); // observed by write, end and abort
  }

  static open(client: pg.ClientBase, text: string): Promise<CopyStream> {
    return new Promise((resolveOpen, rejectOpen) => {
      let settle: { resolve: (rows: number) => void; reject: (error: Error) => void } | undefined;
      const done = new Promise<number>((resolve, reject) => {
        settle = { resolve, reject };
      });
      const self = new CopyStream(done);
      const submittable = {
        submit(connection: CopyConnection) {
          connection.query(text);
        },
        handleCopyInResponse(connection: CopyConnection) {
          self.#connection = connection;
          resolveOpen(self);
        },
        handleCommandComplete(message: { text?: string }) {
          self.#rows = Number(/^COPY (\d+)/.exec(message.text ?? '')?.[1] ?? 0);
        },
        // pg hands an error to the query and then forgets it: ReadyForQuery never reaches it. The
        // connection queues the caller's next statement (ROLLBACK) until the server is ready.
        handleError(error: Error) {
          self.#failure = error;
          rejectOpen(error);
          settle?.reject(error);
        },
        handleReadyForQuery() {
          if (!self.#failure) settle?.resolve(self.#rows);
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

  /** Sends rows in COPY's text format; rejects with Postgres's error once the COPY has failed. */
  async write(rows: Buffer): Promise<void> {
    const connection = this.#connection;
    if (this.#failure || !connection) await this.#done;
    if (!connection || rows.length === 0) return;
    connection.sendCopyFromChunk(rows);
    if (connection.stream.writableNeedDrain) await Promise.race([once(connection.stream, 'drain'), this.#done]);
  }

  /** Ends the COPY; resolves with the rows Postgres stored, or rejects with its error. */
  end(): Promise<number> {
    if (!this.#failure && !this.#ended) this.#connection?.endCopyFrom();
    this.#ended = true;
    return this.#done;
  }

  /**
   * Abandons the COPY (the caller rolls back); never throws. CopyFail goes out even after a failure:
   * an error raised on this side (pg's query_timeout) leaves the server in COPY mode, and a server
   * that has already left it ignores the message.
   */
  async abort(): Promise<void> {
    if (!this.#ended) this.#connection?.sendCopyFail('ledgerhook aborted the load');
    this.#ended = true;
    await this.#done.catch(() => {});
  }
}

/** One field of COPY's text format: backslash, tab, newline and carriage return escaped. */
export function copyField(value: string): string {
  return value.replace(/[\\\t\n\r]/g, (char) =>
    char === '\\' ? '\\\\' : char === '\t' ? '\\t' : char === '\n' ? '\\n' : '\\r',
  );
}

/** A field of COPY's text format read back: copyField undone. */
export function uncopyField(field: string): string {
  return field.includes('\\')
    ? field.replace(/\\([\\tnr])/g, (_, char: string) =>
        char === '\\' ? '\\' : char === 't' ? '\t' : char === 'n' ? '\n' : '\r',
      )
    : field;
}
