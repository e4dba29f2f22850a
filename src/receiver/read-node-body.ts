import type { IncomingMessage } from 'node:http';

export type NodeBodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'too_large' | 'aborted' };

/**
 * Reads the raw request bytes up to a limit, counting as they arrive (a missing or lying
 * Content-Length gets nothing more past the limit), and stops reading once it is passed.
 * Written here rather than shared with `listen` so the receiver has no dependency on the CLI's
 * listener; the behaviour is the same.
 */
export function readNodeBody(req: IncomingMessage, maxBytes: number): Promise<NodeBodyResult> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      resolve({ ok: false, reason: 'too_large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: NodeBodyResult) => {
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
    req.on('end', () => {
      const [first] = chunks;
      settle({ ok: true, body: chunks.length === 1 && first ? first : Buffer.concat(chunks, size) });
    });
    req.on('error', () => settle({ ok: false, reason: 'aborted' }));
    req.on('close', () => settle({ ok: false, reason: 'aborted' }));
  });
}

/** Only the verification header, every occurrence kept, so that a duplicated header is refused. */
export function verificationHeaders(req: IncomingMessage, headerName: string): Record<string, string[]> {
  const wanted = headerName.toLowerCase();
  const values: string[] = [];
  const raw = req.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const value = raw[index + 1];
    if (raw[index]?.toLowerCase() === wanted && value !== undefined) values.push(value);
  }
  return { [wanted]: values };
}
