import { bodySha256Hex } from '@ledgerhook/webhooks/advanced';
import { signWithAlgorithm, unsignedToken } from './forge.js';
import { signClaims, webhookClaims } from '@ledgerhook/webhooks/advanced';
import { buildSampleBody } from '../samples/sample-body.js';
import type { OutgoingDelivery } from './build-delivery.js';
import { USER_AGENT } from './build-delivery.js';
import { withVerificationPrefix } from '@ledgerhook/webhooks/advanced';
import {
  RECEIVER_CASE_TABLE,
  type ReceiverCaseId,
  type ReceiverCaseKind,
  type ReceiverCaseLevel,
} from './receiver-case-table.js';

export interface CaseContext {
  secret: string;
  headerName: string;
  toleranceSeconds: number;
  /** The clock difference allowed between sender and receiver at the tolerance's edges. */
  skewSeconds: number;
  /** Put before every token (the verificationPrefix setting), as the service would. */
  verificationPrefix?: string | undefined;
  /** Current time in seconds since the epoch. */
  nowSeconds: number;
}

export interface ReceiverCase {
  id: ReceiverCaseId;
  title: string;
  /** accept: the receiver must answer 2xx; reject: 4xx (the spec's sample receiver answers 400). */
  expect: 'accept' | 'reject';
  level: ReceiverCaseLevel;
  kind: ReceiverCaseKind;
  build: (ctx: CaseContext) => Promise<OutgoingDelivery>;
}

const entityUpdate = () => JSON.stringify(buildSampleBody({ type: 'ENTITY_UPDATE' }));
const lifecycle = () => JSON.stringify(buildSampleBody({ type: 'LIFECYCLE_EVENT', event: 'INVOICE_VIEWED' }));
const otherBody = () =>
  JSON.stringify(buildSampleBody({ type: 'LIFECYCLE_EVENT', event: 'INVOICE_PAID', userId: 'user_another_delivery' }));

/** Every token goes out as the service would send it: after the configured prefix, if any. */
function delivery(ctx: CaseContext, body: string, ...tokens: string[]): OutgoingDelivery {
  const headers: Record<string, string | string[]> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  const values = tokens.map((token) => withVerificationPrefix(token, ctx.verificationPrefix));
  if (values.length > 0) headers[ctx.headerName.toLowerCase()] = values.length === 1 ? (values[0] as string) : values;
  return { body: Buffer.from(body, 'utf8'), headers };
}

const sign = (ctx: CaseContext, body: string, iat = ctx.nowSeconds) =>
  signClaims(webhookClaims(body, { iat }), ctx.secret);

/** How each case of RECEIVER_CASE_TABLE is built. */
const BUILDERS: Record<ReceiverCaseId, ReceiverCase['build']> = {
  'valid-entity-update': async (ctx) => delivery(ctx, entityUpdate(), await sign(ctx, entityUpdate())),
  'valid-lifecycle-event': async (ctx) => delivery(ctx, lifecycle(), await sign(ctx, lifecycle())),
  'valid-near-expiry': async (ctx) =>
    delivery(
      ctx,
      entityUpdate(),
      await sign(ctx, entityUpdate(), ctx.nowSeconds - Math.max(0, ctx.toleranceSeconds - ctx.skewSeconds)),
    ),
  // A sender's clock a little ahead of the receiver's is normal; spec 5.2 defines only expiry.
  'valid-clock-ahead': async (ctx) =>
    delivery(ctx, entityUpdate(), await sign(ctx, entityUpdate(), ctx.nowSeconds + ctx.skewSeconds)),
  'missing-header': async (ctx) => delivery(ctx, entityUpdate()),
  'not-a-jwt': async (ctx) => delivery(ctx, entityUpdate(), 'not-a-jwt'),
  'alg-none': async (ctx) =>
    delivery(ctx, entityUpdate(), unsignedToken(webhookClaims(entityUpdate(), { iat: ctx.nowSeconds }))),
  hs512: async (ctx) =>
    delivery(
      ctx,
      entityUpdate(),
      await signWithAlgorithm(webhookClaims(entityUpdate(), { iat: ctx.nowSeconds }), ctx.secret, 'HS512'),
    ),
  'wrong-secret': async (ctx) =>
    delivery(
      ctx,
      entityUpdate(),
      await signClaims(webhookClaims(entityUpdate(), { iat: ctx.nowSeconds }), `${ctx.secret}-wrong`),
    ),
  expired: async (ctx) =>
    delivery(
      ctx,
      entityUpdate(),
      await sign(ctx, entityUpdate(), ctx.nowSeconds - ctx.toleranceSeconds - ctx.skewSeconds),
    ),
  // A token issued ahead of time would otherwise stay valid until then: a receiver must refuse it.
  'future-iat': async (ctx) =>
    delivery(ctx, entityUpdate(), await sign(ctx, entityUpdate(), ctx.nowSeconds + ctx.toleranceSeconds + 60)),
  'body-changed': async (ctx) => {
    const body = entityUpdate();
    return delivery(ctx, body.replace('user_', 'user-'), await sign(ctx, body));
  },
  'body-reserialised': async (ctx) => {
    const body = entityUpdate();
    return delivery(ctx, JSON.stringify(JSON.parse(body), null, 2), await sign(ctx, body));
  },
  'body-swapped': async (ctx) => delivery(ctx, entityUpdate(), await sign(ctx, otherBody())),
  // Which copy a framework hands over differs (first, last, joined): one delivery carries exactly one.
  'duplicated-header': async (ctx) => {
    const body = entityUpdate();
    return delivery(
      ctx,
      body,
      await sign(ctx, body),
      await signClaims(webhookClaims(body, { iat: ctx.nowSeconds }), `${ctx.secret}-wrong`),
    );
  },
  'hex-hash': async (ctx) => {
    const body = entityUpdate();
    return delivery(
      ctx,
      body,
      await signClaims({ iat: ctx.nowSeconds, request_body_sha256: bodySha256Hex(body) }, ctx.secret),
    );
  },
};

export const RECEIVER_CASES: readonly ReceiverCase[] = RECEIVER_CASE_TABLE.map((row) => ({
  ...row,
  build: BUILDERS[row.id],
}));
