import type { IncomingMessage } from 'node:http';

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
