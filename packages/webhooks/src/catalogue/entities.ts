/*
 * Spec 4.2: every entity name a webhook may carry, with the list endpoint to call for it.
 * This table drives validation, --help, listings, the mock service and the tests.
 */

/** One entity: its name as webhooks carry it, its list endpoint path, and whether that endpoint is paginated. */
export interface EntityDefinition {
  /** The name as it appears in an ENTITY_UPDATE's `entities`. */
  name: string;
  /** Recommended list endpoint, relative to the API root (e.g. {base_url}/rest/v5). */
  path: string;
  /** Part of the earlier, 14-name form of the list (spec 4.2, last paragraph). */
  inEarlierList: boolean;
  /** Spec 4.3 rule 1: /userTaxSetup is named as not paginated. */
  paginated: boolean;
  /**
   * Another path the spec itself shows for this entity, where its table and its sample disagree
   * (expense: the table says /expenses, the only real request is /expenses/expenses). Named when the
   * table's path answers 404.
   */
  specSamplePath?: string | undefined;
}

const EARLIER = new Set([
  'bankTransfer',
  'business',
  'client',
  'expense',
  'expenseCategory',
  'expenseRule',
  'glEntry',
  'invoice',
  'invoiceSetup',
  'personalExpenseCategory',
  'revenue',
  'revenueRule',
  'taxPayment',
  'userTaxSetup',
]);

const ROWS = [
  ['attachment', '/attachments'],
  ['bankAccount', '/bankAccounts'],
  ['bankTransfer', '/bankTransfers'],
  ['business', '/businesses'],
  ['client', '/clients'],
  ['expense', '/expenses'],
  ['expenseCategory', '/expenses/categories'],
  ['expenseRule', '/expenses/rules'],
  ['glAccount', '/glAccounts'],
  ['glEntry', '/glEntries'],
  ['integration', '/integrations'],
  ['invoice', '/invoices'],
  ['invoiceSetup', '/invoiceSetup'],
  ['payment', '/payments'],
  ['personalExpenseCategory', '/expenses/personalCategories'],
  ['plaidItem', '/plaidItems'],
  ['revenue', '/revenues'],
  ['revenueRule', '/revenueRules'],
  ['task', '/tasks'],
  ['taxEstimates', '/taxEstimates'],
  ['taxPayment', '/taxPayments'],
  ['time', '/times'],
  ['userTaxSetup', '/userTaxSetup'],
  ['vendor', '/vendors'],
] as const satisfies ReadonlyArray<readonly [name: string, path: string]>;

/**
 * The entity names as a string-literal union (`'expense' | 'invoice' | ...`), derived from the
 * same table as `ENTITIES` so that the type and the list never disagree.
 */
export type EntityName = (typeof ROWS)[number][0];

/** Every entity name, in the order of the service's entity table. */
export const ENTITY_NAMES: readonly EntityName[] = ROWS.map(([name]) => name);

/**
 * `/expenses/expenses`, the expense list path of the service's sample request (spec 4.3, with the
 * type filter), where its entity table says `/expenses`.
 */
export const SAMPLE_LIST_PATH = '/expenses/expenses';

/** Every entity a webhook may name, with its list endpoint path and whether that endpoint is paginated. */
export const ENTITIES: readonly EntityDefinition[] = ROWS.map(([name, path]) => ({
  name,
  path,
  inEarlierList: EARLIER.has(name),
  paginated: path !== '/userTaxSetup',
  ...(name === 'expense' ? { specSamplePath: SAMPLE_LIST_PATH } : {}),
}));

const BY_NAME = new Map(ENTITIES.map((entity) => [entity.name, entity]));

/** Looks up an entity by its exact name; undefined when there is none. */
export function findEntity(name: string): EntityDefinition | undefined {
  return BY_NAME.get(name);
}

/**
 * True when a name from a delivery is a known entity name (exact case); narrows it to `EntityName`.
 *
 * @example
 * const known = body.entities.filter(isEntityName); // EntityName[]
 */
export function isEntityName(name: string): name is EntityName {
  return BY_NAME.has(name);
}
