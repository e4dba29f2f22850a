import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CaptureRecord } from '../../src/capture/capture-record.js';
import { signWebhook } from '@ledgerhook/webhooks';
import { tempDir } from './cli.js';

export const CAPTURE_SECRET = 'whsec_captures_test';

/** One capture record as listen writes it, signed with `secret` at `iat` (seconds). */
export async function captureRecord(
  body: string,
  {
    id,
    secret = CAPTURE_SECRET,
    valid = true,
    iat = 1_795_000_000,
    extra = {},
  }: {
    id: string;
    secret?: string;
    valid?: boolean;
    iat?: number;
    extra?: Record<string, unknown>;
  },
): Promise<CaptureRecord> {
  const token = await signWebhook(body, secret, { iat });
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(body);
  } catch {}
  return {
    id,
    receivedAt: new Date((iat + 1) * 1000).toISOString(),
    method: 'POST',
    path: '/webhooks',
    headers: { 'content-type': 'application/json', 'service-verification': token },
    headerName: 'service-verification',
    body: Buffer.from(body).toString('base64'),
    bodyBytes: Buffer.byteLength(body),
    verdict: valid
      ? { valid: true, status: 200 }
      : {
          valid: false,
          code: 'bad_signature',
          message: 'the signature does not verify with the webhook secret',
          status: 400,
        },
    ...(typeof parsed.type === 'string' ? { type: parsed.type } : {}),
    ...(typeof parsed.event === 'string' ? { event: parsed.event } : {}),
    ...(typeof parsed.userId === 'string' ? { userId: parsed.userId } : {}),
    ...(Array.isArray(parsed.entities) ? { entities: parsed.entities as string[] } : {}),
    ...extra,
  };
}

export const VALID_BODY = '{"userId":"user_1","type":"LIFECYCLE_EVENT","event":"INVOICE_VIEWED","eventData":{}}';
export const FORGED_BODY = '{"userId":"user_2","type":"ENTITY_UPDATE","entities":["expense"]}';

/** A capture with a valid line, a refused (forged) line and a torn last line. */
export async function writeMixedCapture(): Promise<{ file: string; records: CaptureRecord[] }> {
  const records = [
    await captureRecord(VALID_BODY, { id: 'dlv_valid' }),
    await captureRecord(FORGED_BODY, { id: 'dlv_forged', secret: 'not-the-secret', valid: false }),
  ];
  const file = join(tempDir(), 'mixed.jsonl');
  writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n{"id":"dlv_torn","receivedAt":"20`);
  return { file, records };
}
