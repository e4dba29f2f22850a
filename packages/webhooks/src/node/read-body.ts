import type { IncomingMessage } from 'node:http';
import type { BodyBudget } from './body-budget.js';

/** What `readRequestBody` returns: the body, or why reading stopped (`too_large`, `aborted`, `no_room`), and the bytes to give back to the budget. */
export type BodyReadResult =
  | { ok: true; body: Buffer; reserved: number }
  | { ok: false; reason: 'too_large' | 'aborted' | 'no_room'; reserved: number };

/**
 * Reads a request body up to a limit, counting bytes as they come (a missing or lying
 * Content-Length cannot get more past the limit), and holding no more than the shared budget
 * allows. Stops reading once a limit is passed. `reserved` is what the caller must give back to
 * the budget once it no longer holds the body.
 *
 * With `waitMs`, a body whose declared length does not fit the budget now waits its turn for room,
 * unread (its socket paused, so that it costs no reads meanwhile), for that long at most; without,
 * or past it, it is refused unread ('no_room').
 */
export function readRequestBody(
  req: IncomingMessage,
  maxBytes: number,
  budget?: BodyBudget,
  waitMs = 0,
): Promise<BodyReadResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes)
    return Promise.resolve({ ok: false, reason: 'too_large', reserved: 0 });
  const needed = budget && Number.isFinite(declared) ? Math.max(0, declared - budget.freeBytes) : 0;
  if (!budget || needed === 0) return readBody(req, maxBytes, budget, 0);
  if (budget.reserve(needed)) return readBody(req, maxBytes, budget, needed);
  if (waitMs <= 0) return Promise.resolve({ ok: false, reason: 'no_room', reserved: 0 });
  return readAfterWaiting(req, maxBytes, budget, needed, waitMs);
}

/** Waits its turn for room in the budget, unread, then reads (or says why not). */
async function readAfterWaiting(
  req: IncomingMessage,
  maxBytes: number,
  budget: BodyBudget,
  needed: number,
  waitMs: number,
): Promise<BodyReadResult> {
  const ticket = budget.wait(needed, waitMs);
  const gone = () => ticket.cancel();
  req.once('close', gone);
  const granted = await ticket.granted;
  req.off('close', gone);
  if (!granted) return { ok: false, reason: req.destroyed ? 'aborted' : 'no_room', reserved: 0 };
  // Let in just as the sender gave up: the room goes back through the caller.
  if (req.destroyed) return { ok: false, reason: 'aborted', reserved: needed };
  return readBody(req, maxBytes, budget, needed);
}

function readBody(
  req: IncomingMessage,
  maxBytes: number,
  budget: BodyBudget | undefined,
  alreadyReserved: number,
): Promise<BodyReadResult> {
  return new Promise((resolve) => {
    let reserved = alreadyReserved;
    const declared = Number(req.headers['content-length']);
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyReadResult) => {
      if (settled) return;
      settled = true;
      if (!result.ok) chunks.length = 0;
      resolve(result);
    };
    // Asks the budget for whatever this request holds beyond its free allowance.
    const fits = (total: number) => {
      const needed = Math.max(0, total - (budget?.freeBytes ?? total)) - reserved;
      if (needed <= 0 || !budget) return true;
      if (!budget.reserve(needed)) return false;
      reserved += needed;
      return true;
    };
    // With a declared length the body is copied into one buffer as it comes: never chunks and a copy at once.
    const whole = Number.isFinite(declared) ? Buffer.allocUnsafe(declared) : undefined;
    req.on('data', (chunk: Buffer) => {
      if (
        size + chunk.length > maxBytes ||
        !fits(size + chunk.length) ||
        (whole && size + chunk.length > whole.length)
      ) {
        size += chunk.length;
        req.pause();
        settle({ ok: false, reason: size > maxBytes ? 'too_large' : 'no_room', reserved });
        return;
      }
      if (whole) chunk.copy(whole, size);
      else chunks.push(chunk);
      size += chunk.length;
    });
    req.on('end', () => {
      if (!whole) settle({ ok: true, body: Buffer.concat(chunks, size), reserved });
      // Node's parser enforces Content-Length; a short body would be a torn upload.
      else
        settle(
          size === whole.length ? { ok: true, body: whole, reserved } : { ok: false, reason: 'aborted', reserved },
        );
    });
    // An aborted upload ends in 'close' (after 'aborted' and, with a listener, 'error'): one settles it.
    const aborted = () => settle({ ok: false, reason: 'aborted', reserved });
    req.on('error', aborted);
    req.on('close', aborted);
  });
}
