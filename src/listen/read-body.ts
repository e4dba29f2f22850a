import type { IncomingMessage } from 'node:http';

export type BodyReadResult =
  | { ok: true; body: Buffer }
  | { ok: false; reason: 'too_large' | 'aborted' };

/**
 * Reads a request body up to a limit, counting bytes as they come (a missing or lying
 * Content-Length cannot get more past the limit). Stops reading once the limit is passed.
 */
export function readRequestBody(req: IncomingMessage, maxBytes: number): Promise<BodyReadResult> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      resolve({ ok: false, reason: 'too_large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyReadResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.pause();
        settle({ ok: false, reason: 'too_large' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => settle({ ok: true, body: Buffer.concat(chunks, size) }));
    req.on('aborted', () => settle({ ok: false, reason: 'aborted' }));
    req.on('error', () => settle({ ok: false, reason: 'aborted' }));
    req.on('close', () => settle({ ok: false, reason: 'aborted' }));
  });
}
