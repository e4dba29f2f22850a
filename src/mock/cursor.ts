import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Where a paginated read stands: bound to its dataset, its snapshot time and its last id. */
export interface CursorState {
  /** Dataset key: path plus sorted filter. */
  dataset: string;
  /** The lastUpdatedDate the read started from (ms), or null for a full read. */
  since: number | null;
  /** Snapshot time (ms) every page of this read reports as lastUpdatedDate. */
  asOf: number;
  lastId: number;
}

export type CursorDecodeResult = { ok: true; state: CursorState } | { ok: false; reason: string };

/**
 * Opaque cursors: the state, Base64Url-encoded and signed with a per-server key, so a cursor
 * cannot be forged, edited, or used after a restart of the mock.
 */
export class CursorCodec {
  readonly #key = randomBytes(32);

  #mac(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url').slice(0, 22);
  }

  encode(state: CursorState): string {
    const payload = Buffer.from(JSON.stringify([state.dataset, state.since, state.asOf, state.lastId])).toString(
      'base64url',
    );
    return `${payload}.${this.#mac(payload)}`;
  }

  decode(cursor: string): CursorDecodeResult {
    const [payload = '', mac = '', ...rest] = cursor.split('.');
    if (rest.length > 0 || !payload || mac.length !== 22)
      return { ok: false, reason: 'not a cursor this server issued' };
    const expected = Buffer.from(this.#mac(payload));
    if (!timingSafeEqual(expected, Buffer.from(mac.padEnd(22).slice(0, 22))))
      return { ok: false, reason: 'not a cursor this server issued (or it was changed)' };
    try {
      const [dataset, since, asOf, lastId] = JSON.parse(Buffer.from(payload, 'base64url').toString()) as [
        string,
        number | null,
        number,
        number,
      ];
      return { ok: true, state: { dataset, since, asOf, lastId } };
    } catch {
      return { ok: false, reason: 'not a cursor this server issued' };
    }
  }
}
