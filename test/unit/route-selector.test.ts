import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LedgerhookError } from '../../src/errors.js';
import { matchesSelector, parseSelector, parseSelectorList } from '../../src/listen/route-selector.js';
import { parseRouteFlag, parseRoutesConfig, routesFor, uniqueNames } from '../../src/listen/routes.js';

const invoiceViewed = { type: 'LIFECYCLE_EVENT', event: 'INVOICE_VIEWED' };
const expenseAdded = { type: 'LIFECYCLE_EVENT', event: 'EXPENSE_ADDED' };
const custom = { type: 'LIFECYCLE_EVENT', event: 'MY_CUSTOM_EVENT' };
const expenseUpdate = { type: 'ENTITY_UPDATE', entities: ['expense', 'invoice'] };
const bankUpdate = { type: 'ENTITY_UPDATE', entities: ['bankAccount'] };
const notWebhook = {};
const ALL = { invoiceViewed, expenseAdded, custom, expenseUpdate, bankUpdate, notWebhook };

describe('route selectors', () => {
  const table: Array<[selector: string, text: string, matches: Array<keyof typeof ALL>]> = [
    ['*', '*', ['invoiceViewed', 'expenseAdded', 'custom', 'expenseUpdate', 'bankUpdate', 'notWebhook']],
    ['ENTITY_UPDATE', 'ENTITY_UPDATE', ['expenseUpdate', 'bankUpdate']],
    ['lifecycle-event', 'LIFECYCLE_EVENT', ['invoiceViewed', 'expenseAdded', 'custom']],
    ['INVOICE_*', 'INVOICE_*', ['invoiceViewed']],
    ['invoice-viewed', 'INVOICE_VIEWED', ['invoiceViewed']],
    ['LIFECYCLE_EVENT:EXPENSE_*', 'EXPENSE_*', ['expenseAdded']],
    ['*_ADDED', '*_ADDED', ['expenseAdded']],
    ['ENTITY_UPDATE:expense', 'ENTITY_UPDATE:expense', ['expenseUpdate']],
    ['ENTITY_UPDATE:Expenses', 'ENTITY_UPDATE:expense', ['expenseUpdate']],
    ['ENTITY_UPDATE:bank*', 'ENTITY_UPDATE:bank*', ['bankUpdate']],
    ['entity_update:*', 'ENTITY_UPDATE:*', ['expenseUpdate', 'bankUpdate']],
  ];
  for (const [input, text, matches] of table)
    it(`${input} reads as ${text} and takes ${matches.join(', ')}`, () => {
      const selector = parseSelector(input);
      assert.equal(selector.text, text);
      const taken = Object.entries(ALL)
        .filter(([, names]) => matchesSelector(selector, names))
        .map(([name]) => name);
      assert.deepEqual(taken, matches);
    });

  const refused: Array<[input: string, reason: string, message: RegExp]> = [
    ['', 'invalid_route', /empty/],
    ['INVOIC_*', 'unknown_event', /matches no event.*did you mean INVOICE_\*/],
    ['INVOICE_VEIWED', 'unknown_event', /did you mean INVOICE_VIEWED/],
    ['expense', 'unknown_event', /write ENTITY_UPDATE:expense/],
    ['ENTITY_UPDATE:expens', 'unknown_entity', /did you mean expense/],
    ['ENTITY_UPDATE:zzz*', 'unknown_entity', /matches no entity/],
    ['ENTITY_UPDAT:expense', 'invalid_route', /ENTITY_UPDATE or LIFECYCLE_EVENT \(did you mean ENTITY_UPDATE\?\)/],
    ['INVOICE_(VIEWED)', 'invalid_route', /only letters, digits/],
    ['*A*B*C*D', 'invalid_route', /more than 3 \*/],
  ];
  for (const [input, reason, message] of refused)
    it(`refuses "${input}" (${reason})`, () => {
      assert.throws(
        () => parseSelector(input),
        (error: unknown) =>
          error instanceof LedgerhookError &&
          error.code === 'ERR_USAGE' &&
          error.details.reason === reason &&
          message.test(error.message),
      );
    });

  it('globs match by the two-pointer method, without regard to case, and never a name past 256 characters', () => {
    const event = (name: string) => ({ type: 'LIFECYCLE_EVENT', event: name });
    const cases: Array<[string, string, boolean]> = [
      ['INVOICE_*', 'INVOICE_PAID', true],
      ['INVOICE_*', 'invoice_paid', true],
      ['INVOICE_*', 'INVOICE_', true],
      ['INVOICE_*', 'XINVOICE_PAID', false],
      ['*_ADDED', 'EXPENSE_ADDED', true],
      ['*_ADDED', 'EXPENSE_ADDED_X', false],
      ['*_*_*D', 'BANK_TRANSFER_ADDED', true],
      ['*_*_*D', 'INVOICE_PAID', false],
      ['INVOICE_PAID', 'INVOICE_PAI', false],
      // A name from a hostile body: answered at once (a regex's .* would backtrack for seconds).
      ['*_*_*D', '_'.repeat(255), false],
      ['*_*_*D', `${'_'.repeat(254)}D`, true],
      ['*_*_*D', `${'_'.repeat(300)}D`, false],
    ];
    for (const [selector, name, expected] of cases)
      assert.equal(
        matchesSelector(parseSelector(selector), event(name)),
        expected,
        `${selector} vs ${name.slice(0, 40)}`,
      );
  });

  it('--events is a comma list of the same selectors', () => {
    assert.deepEqual(
      parseSelectorList('INVOICE_*, ENTITY_UPDATE:expense').map((s) => s.text),
      ['INVOICE_*', 'ENTITY_UPDATE:expense'],
    );
    assert.throws(() => parseSelectorList(' , '), /empty/);
  });
});

describe('routes', () => {
  const flags: Array<[input: string, name: string, href: string]> = [
    [':3001', 'default', 'http://localhost:3001/'],
    ['INVOICE_*=http://localhost:3000/invoices', 'INVOICE_*', 'http://localhost:3000/invoices'],
    ['ENTITY_UPDATE:expense=:3001', 'ENTITY_UPDATE:expense', 'http://localhost:3001/'],
    // A URL's own "=" (a query) is not a selector.
    ['http://localhost:3000/hook?a=b', 'default', 'http://localhost:3000/hook?a=b'],
    ['localhost:3000/h?x=1', 'default', 'http://localhost:3000/h?x=1'],
    ['*=3002/all', '*', 'http://localhost:3002/all'],
  ];
  for (const [input, name, href] of flags)
    it(`--forward-to ${input}`, () => {
      const route = parseRouteFlag(input);
      assert.deepEqual([route.name, route.url.href], [name, href]);
    });

  it('a catch-all takes what no selector route took; * takes everything; --events filters first', () => {
    const routes = uniqueNames(
      ['INVOICE_*=:1', 'ENTITY_UPDATE:expense=:2', ':3', '*=:4', 'INVOICE_*=:5'].map(parseRouteFlag),
    );
    const names = (found: Array<{ name: string }>) => found.map((route) => route.name);
    assert.deepEqual(names(routes), ['INVOICE_*', 'ENTITY_UPDATE:expense', 'default', '*', 'INVOICE_*#2']);
    assert.deepEqual(names(routesFor({ routes }, invoiceViewed)), ['INVOICE_*', '*', 'INVOICE_*#2']);
    assert.deepEqual(names(routesFor({ routes }, expenseUpdate)), ['ENTITY_UPDATE:expense', '*']);
    assert.deepEqual(names(routesFor({ routes }, bankUpdate)), ['*', 'default']);
    assert.deepEqual(names(routesFor({ routes }, notWebhook)), ['*', 'default']);
    const events = parseSelectorList('ENTITY_UPDATE');
    assert.deepEqual(names(routesFor({ routes, events }, invoiceViewed)), []);
    assert.deepEqual(names(routesFor({ routes, events }, bankUpdate)), ['*', 'default']);
  });

  it('a routes file: entries with a name, one or several selectors, or none (catch-all)', () => {
    const routes = parseRoutesConfig(
      {
        routes: [
          { name: 'invoices', match: 'INVOICE_*', to: ':3000/invoices' },
          { match: ['ENTITY_UPDATE:expense', 'EXPENSE_*'], to: ':3001' },
          { to: ':3002' },
        ],
      },
      'routes.json',
    );
    assert.deepEqual(
      routes.map((route) => [route.name, route.selectors.length, route.url.href]),
      [
        ['invoices', 1, 'http://localhost:3000/invoices'],
        ['ENTITY_UPDATE:expense|EXPENSE_*', 2, 'http://localhost:3001/'],
        ['default', 0, 'http://localhost:3002/'],
      ],
    );
    assert.equal(parseRoutesConfig([{ to: ':1' }], 'r.json').length, 1, 'the bare array');
  });

  const badFiles: Array<[value: unknown, message: RegExp]> = [
    [{}, /^r\.json: expected \{"routes"/],
    [{ routes: [] }, /^r\.json: routes is empty/],
    [{ routes: ['x'] }, /^r\.json: routes\[0\] is not an object/],
    [{ routes: [{ to: ':1', color: 'red' }] }, /^r\.json: routes\[0\] has an unknown key "color"/],
    [{ routes: [{ match: 'INVOICE_*' }] }, /^r\.json: routes\[0\]\.to is missing/],
    [{ routes: [{ to: ':1' }, { match: 7, to: ':2' }] }, /^r\.json: routes\[1\]\.match is not a selector/],
    [{ routes: [{ match: 'INVOICE_PAYED', to: ':2' }] }, /^r\.json: routes\[0\]: selector .*did you mean INVOICE_PAID/],
    [{ routes: [{ to: 'ftp://x' }] }, /^r\.json: routes\[0\]: only http and https/],
    [{ routes: [{ name: 'a b', to: ':1' }] }, /^r\.json: routes\[0\]\.name is not a short name/],
  ];
  for (const [value, message] of badFiles)
    it(`refuses ${JSON.stringify(value)}`, () => {
      assert.throws(
        () => parseRoutesConfig(value, 'r.json'),
        (error: unknown) =>
          error instanceof LedgerhookError &&
          error.details.reason === 'invalid_routes_file' &&
          message.test(error.message),
      );
    });
});
