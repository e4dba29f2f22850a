/**
 * Spec 4.2 and 6.2, copied by hand from /work/shared/interface-spec.md. Nothing here is derived
 * from src/catalogue: the mock builds its routes from the catalogue too, so only a table written
 * out in the test catches a wrong path or a mistyped suggested use.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENTITIES, findEntity } from '@ledgerhook/webhooks';
import { SAMPLE_LIST_PATH } from '../../packages/webhooks/src/catalogue/entities.js';
import { EVENTS, findEvent } from '@ledgerhook/webhooks';
import { MockService } from '../../src/mock/mock-service.js';

/** Spec 4.2, "Entity name in entities | Recommended fetch" (all GET). */
const SPEC_ENTITY_PATHS: ReadonlyArray<[string, string]> = [
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
];

/** Spec 4.2, last paragraph: the earlier form of the list. */
const SPEC_EARLIER_ENTITIES = [
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
];

/** Spec 6.2, "event | Suggested use". */
const SPEC_EVENTS: ReadonlyArray<[string, string]> = [
  ['BANK_TRANSFER_ADDED', 'Tell the user new bank transfers need review'],
  ['BANK_TRANSFER_AUTO_TAGGED', 'Tell the user bank transfers were matched automatically'],
  ['BANK_TRANSFER_UPDATED', 'Analytics only'],
  ['EXPENSE_ADDED', 'Tell the user new expenses need tagging; may prompt for a receipt image'],
  ['EXPENSE_AUTO_TAGGED', 'Tell the user expenses were auto-tagged'],
  ['EXPENSE_RULE_ACCEPTED', 'Analytics only'],
  ['EXPENSE_UPDATED', 'Analytics only'],
  ['INTEGRATION_ADDED', 'Trigger next onboarding steps'],
  ['INTEGRATION_ERROR', 'Tell the user to re-link the account'],
  ['INVOICE_CREATED', 'Analytics only'],
  ['INVOICE_PAID', 'Tell the user an invoice was paid'],
  ['INVOICE_PAYMENT_METHOD_STORED', 'Tell the user a client stored a card for future invoices'],
  ['INVOICE_SETUP_COMPLETED', 'Analytics only'],
  ['INVOICE_VIEWED', 'Tell the user a client opened an invoice'],
  ['JOURNAL_ENTRY_ADDED', 'Analytics only'],
  ['PAYMENT_PROCESSING_SETUP_COMPLETED', 'Analytics only'],
  ['RECEIPT_ATTACHED', 'Analytics only'],
  ['REVENUE_ADDED', 'Tell the user new income transactions need tagging'],
  ['REVENUE_AUTO_TAGGED', 'Tell the user income was auto-tagged'],
  ['REVENUE_RULE_ACCEPTED', 'Analytics only'],
  ['REVENUE_UPDATED', 'Analytics only'],
  ['TAX_PAYMENT_ADDED', 'Tell the user a new tax payment needs review'],
  ['TAX_PAYMENT_UPDATED', 'Analytics only'],
  ['TAX_SETUP_COMPLETED', 'Analytics only'],
  ['TRANSACTION_PULL_COMPLETED', 'Tell the user historical transactions are ready to be tagged'],
];

describe('spec 4.2: entity names and their list endpoints', () => {
  it('the catalogue holds exactly the 24 entity -> path pairs of the spec table, in its order', () => {
    assert.equal(SPEC_ENTITY_PATHS.length, 24);
    assert.deepEqual(
      ENTITIES.map((entity) => [entity.name, entity.path]),
      SPEC_ENTITY_PATHS.map(([name, path]) => [name, path]),
    );
  });

  for (const [name, path] of SPEC_ENTITY_PATHS) {
    it(`${name} -> GET ${path}: found by name, and served by the mock at that path`, async () => {
      assert.equal(findEntity(name)?.path, path);
      const service = new MockService({ items: 3, otherItems: 3 });
      assert.equal(service.entityFor(path), name);
      const response = await service.handle({
        method: 'GET',
        url: `/rest/v5${path}`,
        headers: { authorization: `Bearer ${service.token}`, limit: '2' },
      });
      assert.equal(response.status, 200, path);
    });
  }

  it('marks exactly the 14 names of the earlier form of the list', () => {
    assert.equal(SPEC_EARLIER_ENTITIES.length, 14);
    assert.deepEqual(
      ENTITIES.filter((entity) => entity.inEarlierList).map((entity) => entity.name),
      SPEC_EARLIER_ENTITIES,
    );
    for (const name of SPEC_EARLIER_ENTITIES) assert.ok(findEntity(name), `${name} is still a known entity`);
  });

  it('spec 4.3 rule 1: /userTaxSetup is the one endpoint named as not paginated', () => {
    assert.deepEqual(
      ENTITIES.filter((entity) => !entity.paginated).map((entity) => entity.path),
      ['/userTaxSetup'],
    );
  });

  it('spec 4.3: the sample list request path is /expenses/expenses, served as the expense dataset', () => {
    assert.equal(SAMPLE_LIST_PATH, '/expenses/expenses');
    assert.equal(new MockService().entityFor('/expenses/expenses'), 'expense');
  });

  it('a path that is not in the table is not served (404), so a wrong path cannot pass unnoticed', async () => {
    const service = new MockService({ items: 1, otherItems: 1 });
    for (const path of ['/expense', '/personalCategories', '/expenseCategories', '/taxEstimate']) {
      const response = await service.handle({
        method: 'GET',
        url: `/rest/v5${path}`,
        headers: { authorization: `Bearer ${service.token}` },
      });
      assert.equal(response.status, 404, path);
    }
  });
});

describe('spec 6.2: lifecycle event names and suggested uses', () => {
  it('the catalogue holds exactly the 25 events of the spec table, with the suggested use verbatim', () => {
    assert.equal(SPEC_EVENTS.length, 25);
    assert.deepEqual(
      EVENTS.map((event) => [event.name, event.suggestedUse]),
      SPEC_EVENTS.map(([name, use]) => [name, use]),
    );
  });

  it('"Analytics only" events are the ones that do not notify the user', () => {
    for (const [name, use] of SPEC_EVENTS) assert.equal(findEvent(name)?.notifiesUser, use !== 'Analytics only', name);
  });

  it('spec 2.2: TRANSACTION_PULL_COMPLETED carries integrationName (a string) in its sample eventData', () => {
    assert.equal(typeof findEvent('TRANSACTION_PULL_COMPLETED')?.sampleEventData.integrationName, 'string');
  });

  it('"others can be arranged": a custom name is simply not in the catalogue (not an error)', () => {
    assert.equal(findEvent('MY_CUSTOM_EVENT'), undefined);
  });
});
