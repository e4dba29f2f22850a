/*
 * Spec 6.2: the LIFECYCLE_EVENT names with the suggested subscriber messaging, and a realistic
 * eventData for each. Spec 2.2 fixes two shapes (TRANSACTION_PULL_COMPLETED carries integrationName;
 * EXPENSE_ADDED carries what routes the user to the transaction); the rest are plausible, since
 * the spec does not show them, and users can override any of it.
 */

/**
 * One lifecycle event: its name, the suggested use (tell the user, or analytics only), the entity
 * it is about and a sample `eventData`.
 */
export interface EventDefinition {
  name: string;
  /** The spec's suggested use, verbatim. */
  suggestedUse: string;
  /** True when the suggestion is to tell the user something (not "Analytics only"). */
  notifiesUser: boolean;
  /** The entity the event is about, when there is one (links events to ENTITY_UPDATE). */
  entity?: string | undefined;
  sampleEventData: Record<string, unknown>;
  /**
   * True when sampleEventData shows fields the spec does not name (every event but
   * TRANSACTION_PULL_COMPLETED): a realistic sample, never a promise about the service's payload.
   */
  sampleIsIllustrative: boolean;
}

const entityRef = (entityType: string, entityId: number) => ({ entityType, entityId });
const invoiceRef = {
  invoiceId: 10_482,
  invoiceNumber: 'INV-2026-0142',
  clientId: 7_731,
  clientName: 'Harbour & Pine Studio',
};

const ROWS = [
  [
    'BANK_TRANSFER_ADDED',
    'Tell the user new bank transfers need review',
    'bankTransfer',
    { ...entityRef('bankTransfer', 90_211), count: 3 },
  ],
  [
    'BANK_TRANSFER_AUTO_TAGGED',
    'Tell the user bank transfers were matched automatically',
    'bankTransfer',
    { ...entityRef('bankTransfer', 90_212), count: 2 },
  ],
  ['BANK_TRANSFER_UPDATED', 'Analytics only', 'bankTransfer', entityRef('bankTransfer', 90_211)],
  [
    'EXPENSE_ADDED',
    'Tell the user new expenses need tagging; may prompt for a receipt image',
    'expense',
    {
      expenseId: 481_213,
      bankAccountId: 3_121,
      amount: 42.5,
      currency: 'USD',
      date: '2026-11-20 14:03:11.000',
      description: 'BLUE BOTTLE COFFEE #114',
    },
  ],
  [
    'EXPENSE_AUTO_TAGGED',
    'Tell the user expenses were auto-tagged',
    'expense',
    { ...entityRef('expense', 481_214), count: 5 },
  ],
  ['EXPENSE_RULE_ACCEPTED', 'Analytics only', 'expenseRule', entityRef('expenseRule', 6_120)],
  ['EXPENSE_UPDATED', 'Analytics only', 'expense', entityRef('expense', 481_213)],
  [
    'INTEGRATION_ADDED',
    'Trigger next onboarding steps',
    'integration',
    { integrationId: 2_204, integrationName: 'Plaid' },
  ],
  [
    'INTEGRATION_ERROR',
    'Tell the user to re-link the account',
    'integration',
    { integrationId: 2_204, integrationName: 'Plaid', error: 'ITEM_LOGIN_REQUIRED' },
  ],
  ['INVOICE_CREATED', 'Analytics only', 'invoice', invoiceRef],
  ['INVOICE_PAID', 'Tell the user an invoice was paid', 'invoice', { ...invoiceRef, amount: 1_250, currency: 'USD' }],
  ['INVOICE_PAYMENT_METHOD_STORED', 'Tell the user a client stored a card for future invoices', 'invoice', invoiceRef],
  ['INVOICE_SETUP_COMPLETED', 'Analytics only', 'invoiceSetup', entityRef('invoiceSetup', 1)],
  ['INVOICE_VIEWED', 'Tell the user a client opened an invoice', 'invoice', invoiceRef],
  ['JOURNAL_ENTRY_ADDED', 'Analytics only', 'glEntry', entityRef('glEntry', 55_019)],
  ['PAYMENT_PROCESSING_SETUP_COMPLETED', 'Analytics only', 'payment', entityRef('payment', 1)],
  ['RECEIPT_ATTACHED', 'Analytics only', 'attachment', { ...entityRef('attachment', 30_017), expenseId: 481_213 }],
  [
    'REVENUE_ADDED',
    'Tell the user new income transactions need tagging',
    'revenue',
    { ...entityRef('revenue', 72_004), count: 2 },
  ],
  [
    'REVENUE_AUTO_TAGGED',
    'Tell the user income was auto-tagged',
    'revenue',
    { ...entityRef('revenue', 72_005), count: 4 },
  ],
  ['REVENUE_RULE_ACCEPTED', 'Analytics only', 'revenueRule', entityRef('revenueRule', 812)],
  ['REVENUE_UPDATED', 'Analytics only', 'revenue', entityRef('revenue', 72_004)],
  ['TAX_PAYMENT_ADDED', 'Tell the user a new tax payment needs review', 'taxPayment', entityRef('taxPayment', 4_410)],
  ['TAX_PAYMENT_UPDATED', 'Analytics only', 'taxPayment', entityRef('taxPayment', 4_410)],
  ['TAX_SETUP_COMPLETED', 'Analytics only', 'userTaxSetup', entityRef('userTaxSetup', 1)],
  [
    'TRANSACTION_PULL_COMPLETED',
    'Tell the user historical transactions are ready to be tagged',
    'bankTransfer',
    { integrationName: 'Plaid' },
  ],
] as const satisfies ReadonlyArray<
  readonly [name: string, suggestedUse: string, entity: string | undefined, data: Record<string, unknown>]
>;

/**
 * The known lifecycle event names as a string-literal union (`'INVOICE_PAID' | 'EXPENSE_ADDED' | ...`),
 * derived from the same table as `EVENTS` so that the type and the list never disagree.
 */
export type LifecycleEventName = (typeof ROWS)[number][0];

/** Every lifecycle event name, in the order of the service's event table. */
export const LIFECYCLE_EVENT_NAMES: readonly LifecycleEventName[] = ROWS.map(([name]) => name);

/** Every lifecycle event, with its suggested use, the entity it is about and a sample `eventData`. */
export const EVENTS: readonly EventDefinition[] = ROWS.map(([name, suggestedUse, entity, sampleEventData]) => ({
  name,
  suggestedUse,
  notifiesUser: suggestedUse !== 'Analytics only',
  entity,
  sampleEventData,
  sampleIsIllustrative: name !== 'TRANSACTION_PULL_COMPLETED',
}));

const BY_NAME = new Map(EVENTS.map((event) => [event.name, event]));

/** Looks up a lifecycle event by its exact name; undefined when there is none. */
export function findEvent(name: string): EventDefinition | undefined {
  return BY_NAME.get(name);
}

/**
 * True when a name from a delivery is a known lifecycle event name (exact case); narrows it to
 * `LifecycleEventName`.
 *
 * @example
 * if (isLifecycleEventName(body.event)) findEvent(body.event)?.suggestedUse;
 */
export function isLifecycleEventName(name: string): name is LifecycleEventName {
  return BY_NAME.has(name);
}

/** The two webhook types: `ENTITY_UPDATE` and `LIFECYCLE_EVENT`. */
export const WEBHOOK_TYPES = ['ENTITY_UPDATE', 'LIFECYCLE_EVENT'] as const;
/** The webhook type as a union: `'ENTITY_UPDATE' | 'LIFECYCLE_EVENT'`. */
export type WebhookType = (typeof WEBHOOK_TYPES)[number];
