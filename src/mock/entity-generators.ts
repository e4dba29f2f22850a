import { between, money, pick, randomFor } from './random.js';

/** An item of any entity: spec 2.5 shows expenses; the rest are plausible shapes (spec: not shown). */
export type MockItem = { id: number; [field: string]: unknown };

export interface GeneratorContext {
  seed: number;
  /** Base time in ms; generated dates fall in the year before it. */
  now: number;
}

type Generator = (random: () => number, id: number, ctx: GeneratorContext) => Omit<MockItem, 'id'>;

/** Spec 2.5 shows PENDING; the other values are plausible bookkeeping states. */
export const EXPENSE_TYPES = ['PENDING', 'BUSINESS', 'PERSONAL', 'EXCLUDED'] as const;
const EXPENSE_TYPE_WEIGHTS = [0.35, 0.4, 0.2, 0.05];

const VENDORS = [
  'Blue Bottle Coffee',
  'Amazon Web Services',
  'Delta Air Lines',
  'Staples',
  'Uber',
  'WeWork',
  'Adobe',
  'Shell',
  'Home Depot',
  'Zoom',
] as const;
const CLIENTS = [
  'Harbour & Pine Studio',
  'Northwind Traders',
  'Acme Robotics',
  'Lumen Health',
  'Cobalt Legal',
  'Fernway Bakery',
] as const;
const INTEGRATIONS = ['Plaid', 'Stripe', 'Square', 'PayPal', 'Shopify'] as const;

/** "YYYY-MM-DD HH:MM:SS.mmm" (spec 2.5) */
export function serviceDate(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

const pastDate = (random: () => number, ctx: GeneratorContext) =>
  serviceDate(ctx.now - Math.floor(random() * 365 * 24 * 3600 * 1000));
const day = (random: () => number, ctx: GeneratorContext) => pastDate(random, ctx).slice(0, 10);

function weighted<T>(random: () => number, values: readonly [T, ...T[]], weights: readonly number[]): T {
  let roll = random();
  for (const [index, weight] of weights.entries()) {
    roll -= weight;
    const value = values[index];
    if (roll < 0 && value !== undefined) return value;
  }
  return values.at(-1) ?? values[0];
}

export function expenseFields(random: () => number, ctx: GeneratorContext): Omit<MockItem, 'id'> {
  const vendor = pick(random, VENDORS);
  return {
    type: weighted(random, EXPENSE_TYPES, EXPENSE_TYPE_WEIGHTS),
    date: pastDate(random, ctx),
    amount: money(random, 1, 2500),
    categoryId: between(random, 1, 40),
    personalCategoryId: between(random, 1, 15),
    description: `${vendor.toUpperCase()} #${between(random, 100, 999)}`,
    vendor,
    bankAccountId: between(random, 3100, 3105),
    currency: 'USD',
  };
}

/** Per entity name (the catalogue's), a generator and how many items by default. */
export const GENERATORS: Record<string, Generator> = {
  attachment: (r, _id, ctx) => ({
    fileName: `receipt-${between(r, 1000, 9999)}.jpg`,
    contentType: 'image/jpeg',
    size: between(r, 20_000, 900_000),
    uploadedAt: pastDate(r, ctx),
  }),
  bankAccount: (r) => ({
    name: pick(r, ['Checking', 'Savings', 'Business Checking', 'Credit Card']),
    mask: String(between(r, 1000, 9999)),
    institution: pick(r, ['Chase', 'Bank of America', 'Wells Fargo', 'Mercury']),
    balance: money(r, 0, 50_000),
  }),
  bankTransfer: (r, _id, ctx) => ({
    date: pastDate(r, ctx),
    amount: money(r, 10, 20_000),
    direction: pick(r, ['IN', 'OUT']),
    bankAccountId: between(r, 3100, 3105),
    status: pick(r, ['PENDING', 'REVIEWED']),
  }),
  business: (r) => ({
    name: pick(r, ['Studio Nine LLC', 'Fern & Co', 'Northside Consulting']),
    entityType: pick(r, ['LLC', 'SOLE_PROPRIETOR', 'S_CORP']),
    state: pick(r, ['CA', 'NY', 'TX', 'WA']),
  }),
  client: (r) => ({ name: pick(r, CLIENTS), email: `billing${between(r, 1, 99)}@example.com`, currency: 'USD' }),
  expense: (r, _id, ctx) => expenseFields(r, ctx),
  expenseCategory: (r) => ({
    name: pick(r, ['Meals', 'Travel', 'Software', 'Office Supplies', 'Advertising', 'Utilities']),
    taxDeductible: r() < 0.8,
  }),
  expenseRule: (r) => ({ vendorContains: pick(r, VENDORS), categoryId: between(r, 1, 40), active: r() < 0.9 }),
  glAccount: (r) => ({
    code: String(between(r, 1000, 9999)),
    name: pick(r, ['Cash', 'Accounts Receivable', 'Revenue', 'Cost of Goods Sold', 'Owner Equity']),
    kind: pick(r, ['ASSET', 'LIABILITY', 'EQUITY', 'INCOME', 'EXPENSE']),
  }),
  glEntry: (r, _id, ctx) => ({
    date: pastDate(r, ctx),
    glAccountId: between(r, 1, 30),
    debit: money(r, 0, 5000),
    credit: 0,
    memo: 'Journal entry',
  }),
  integration: (r) => ({ integrationName: pick(r, INTEGRATIONS), status: pick(r, ['ACTIVE', 'ACTIVE', 'ERROR']) }),
  invoice: (r, id, ctx) => ({
    number: `INV-2026-${String(id).slice(-4)}`,
    clientId: between(r, 1, 20),
    amount: money(r, 100, 15_000),
    status: pick(r, ['DRAFT', 'SENT', 'VIEWED', 'PAID']),
    dueDate: day(r, ctx),
  }),
  invoiceSetup: (r) => ({ logo: r() < 0.5, defaultTermsDays: pick(r, [15, 30, 45]), paymentsEnabled: r() < 0.7 }),
  payment: (r, _id, ctx) => ({
    invoiceId: between(r, 1, 500),
    amount: money(r, 50, 15_000),
    method: pick(r, ['CARD', 'ACH']),
    paidAt: pastDate(r, ctx),
  }),
  personalExpenseCategory: (r) => ({ name: pick(r, ['Groceries', 'Rent', 'Entertainment', 'Health', 'Gifts']) }),
  plaidItem: (r) => ({
    institution: pick(r, ['Chase', 'Citi', 'Capital One']),
    status: pick(r, ['GOOD', 'LOGIN_REQUIRED']),
  }),
  revenue: (r, _id, ctx) => ({
    type: pick(r, ['PENDING', 'BUSINESS', 'EXCLUDED']),
    date: pastDate(r, ctx),
    amount: money(r, 20, 20_000),
    clientId: between(r, 1, 20),
  }),
  revenueRule: (r) => ({ payerContains: pick(r, CLIENTS), active: r() < 0.9 }),
  task: (r, _id, ctx) => ({
    title: pick(r, ['Tag expenses', 'Review bank transfers', 'Upload receipts', 'Send invoice']),
    done: r() < 0.4,
    dueDate: day(r, ctx),
  }),
  taxEstimates: (r) => ({
    quarter: between(r, 1, 4),
    year: 2026,
    federal: money(r, 500, 12_000),
    state: money(r, 100, 4000),
  }),
  taxPayment: (r, _id, ctx) => ({
    date: pastDate(r, ctx),
    amount: money(r, 200, 10_000),
    jurisdiction: pick(r, ['FEDERAL', 'STATE']),
    quarter: between(r, 1, 4),
  }),
  time: (r, _id, ctx) => ({
    date: day(r, ctx),
    hours: between(r, 1, 10),
    clientId: between(r, 1, 20),
    billable: r() < 0.8,
  }),
  userTaxSetup: (r) => ({
    filingStatus: pick(r, ['SINGLE', 'MARRIED_JOINT']),
    state: pick(r, ['CA', 'NY', 'TX']),
    estimatedIncome: money(r, 40_000, 250_000),
  }),
  vendor: (r) => ({ name: pick(r, VENDORS), defaultCategoryId: between(r, 1, 40) }),
};

/** The same (seed, entity, id) always gives the same item. */
export function generateItem(entity: string, id: number, ctx: GeneratorContext, entityIndex: number): MockItem {
  const random = randomFor(ctx.seed + entityIndex * 7919, id);
  const generate = GENERATORS[entity];
  // Every catalogue entity has a generator; an unknown name gets a bare item rather than a crash.
  if (!generate) return { id };
  return { id, ...generate(random, id, ctx) };
}
