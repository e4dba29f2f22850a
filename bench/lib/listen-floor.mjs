// The least a receiver that keeps listen --capture --json's promises costs, written by hand on
// node:http and node:crypto (bench/listen-throughput.ts's floor): it reads the body, verifies the
// token (HS256 over a cached key, iat within 300 s, the body's SHA-256 against its claim), parses
// the body, appends a capture line (the headers, the body in Base64) with one synchronous write per
// turn of the event loop, prints a JSON line per delivery in one write per 10 ms, and only then
// answers 200 with a JSON body. No diagnosis, redaction, routes, limits or telemetry: what listen
// adds to this is its own design's cost.
import { createHash, createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { openSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';

const key = createSecretKey(Buffer.from(process.env.LEDGERHOOK_WEBHOOK_SECRET ?? '', 'utf8'));
const capture = openSync(process.argv[2], 'a', 0o600);
let lines = [];
let printed = [];
let seq = 0;
const writeCapture = () => {
  const text = lines.join('');
  const done = resolvers;
  lines = [];
  resolvers = [];
  writeSync(capture, text);
  for (const resolve of done) resolve();
};
let resolvers = [];
const append = (line) =>
  new Promise((resolve) => {
    if (lines.length === 0) setImmediate(writeCapture);
    lines.push(line);
    resolvers.push(resolve);
  });
const print = (line) => {
  if (printed.length === 0)
    setTimeout(() => {
      process.stdout.write(`${printed.join('\n')}\n`);
      printed = [];
    }, 10);
  printed.push(line);
};
const segment = (text) => JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));

function verify(token, body) {
  const parts = token.split('.');
  if (parts.length !== 3) return 'malformed';
  const header = segment(parts[0]);
  const payload = segment(parts[1]);
  if (header.alg !== 'HS256') return 'alg';
  if (Math.abs(Date.now() / 1000 - payload.iat) > 300) return 'expired';
  const hash = createHash('sha256').update(body).digest('base64');
  if (hash !== payload.request_body_sha256) return 'body_mismatch';
  const expected = createHmac('sha256', key).update(`${parts[0]}.${parts[1]}`).digest('base64url');
  const given = Buffer.from(parts[2], 'utf8');
  return given.length === 43 && timingSafeEqual(Buffer.from(expected, 'latin1'), given) ? undefined : 'signature';
}

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    const receivedAt = new Date().toISOString();
    const id = `dlv_${Date.now().toString(36)}${(seq++).toString(36)}`;
    const failed = verify(String(req.headers['service-verification'] ?? ''), body);
    const parsed = JSON.parse(body.toString('utf8'));
    const verdict = failed ? { valid: false, status: 400, code: failed } : { valid: true, status: 200 };
    const common = {
      id,
      receivedAt,
      method: req.method,
      path: req.url,
      headerName: 'service-verification',
      bodyBytes: body.length,
    };
    const facts = { type: parsed.type, userId: parsed.userId, entities: parsed.entities };
    await append(
      `${JSON.stringify({ ...common, headers: req.headers, body: body.toString('base64'), verdict, ...facts })}\n`,
    );
    print(
      JSON.stringify({
        kind: 'delivery',
        time: new Date().toISOString(),
        ...common,
        verdict: { ...verdict, warnings: [] },
        ...facts,
      }),
    );
    const text = JSON.stringify(failed ? { error: failed } : { received: true });
    res
      .writeHead(verdict.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
      .end(text);
  });
}).listen(0, '127.0.0.1', function () {
  console.log(`port ${this.address().port}`);
});
