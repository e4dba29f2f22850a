/**
 * Type fixture for test/receiver/types.test.ts. It must compile as it is (it is also part of
 * `npm run typecheck`); the test swaps the line after each `SLOT:` comment for a wrong variant
 * and asserts that the variant does not compile.
 */
import {
  type AnyLifecycleEventBody,
  type EntityName,
  type LifecycleEventName,
  type UnknownLifecycleEventBody,
  Webhooks,
} from '../../src/receiver/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectType = <T extends true>(value: T): T => value;

const webhooks = new Webhooks({ secret: 'fixture-secret' });

webhooks.on('TRANSACTION_PULL_COMPLETED', ({ userId, event, eventData }) => {
  expectType<Equal<typeof event, 'TRANSACTION_PULL_COMPLETED'>>(true);
  expectType<Equal<typeof eventData.integrationName, string>>(true);
  // SLOT:narrowing
  const integration: string = eventData.integrationName;
  return `${userId} ${integration}`;
});

// SLOT:event-name
webhooks.on('INVOICE_VIEWED', ({ eventData }) => {
  // The spec shows no INVOICE_VIEWED field: nothing is invented.
  expectType<Equal<typeof eventData, Record<string, unknown>>>(true);
});

webhooks.on('EXPENSE_ADDED', ({ eventData }) => {
  expectType<Equal<typeof eventData, Record<string, unknown>>>(true);
});

webhooks.on('ENTITY_UPDATE', ({ entities, unknownEntities }) => {
  expectType<Equal<typeof entities, EntityName[]>>(true);
  expectType<Equal<typeof unknownEntities, string[]>>(true);
});

webhooks.on(['EXPENSE_ADDED', 'REVENUE_ADDED'], ({ event }) => {
  expectType<Equal<typeof event, 'EXPENSE_ADDED' | 'REVENUE_ADDED'>>(true);
});

webhooks.on('LIFECYCLE_EVENT', (body) => {
  expectType<Equal<typeof body, AnyLifecycleEventBody | UnknownLifecycleEventBody>>(true);
  expectType<Equal<typeof body.event, string>>(true);
});

webhooks.onAny((delivery) => {
  expectType<Equal<typeof delivery.body.userId, string>>(true);
});

// SLOT:entity-name
const entity: EntityName = 'bankTransfer';
const lifecycle: LifecycleEventName = 'TRANSACTION_PULL_COMPLETED';
export { entity, lifecycle };
