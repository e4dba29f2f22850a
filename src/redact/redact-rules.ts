import { usageError } from '../errors.js';

/**
 * Which values are personal data: field names (at any depth), JSON paths, and the shapes of values
 * that are personal wherever they appear (an e-mail address, an IBAN, a card number). Pure data and
 * matching; the keyed hash that replaces a value is redactor.ts's.
 */

/** A field name as compared: case and separators ignored (`e_mail`, `eMail` and `E-Mail` are one). */
export function normaliseFieldName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * The default set for this API: e-mail addresses, names, free-text descriptions, account and card
 * numbers, IBANs (and the phone numbers, postal addresses and tax numbers that travel with them).
 * Normalised names; a field that matches is redacted with everything beneath it.
 */
export const DEFAULT_REDACTED_FIELDS: readonly string[] = [
  // e-mail addresses
  'email',
  'emailaddress',
  'contactemail',
  'billingemail',
  'clientemail',
  'customeremail',
  'useremail',
  // names of people and businesses
  'name',
  'firstname',
  'middlename',
  'lastname',
  'fullname',
  'displayname',
  'username',
  'nickname',
  'clientname',
  'customername',
  'contactname',
  'vendorname',
  'payeename',
  'payername',
  'businessname',
  'companyname',
  'legalname',
  'accountname',
  'accountholder',
  'accountholdername',
  'cardholder',
  'cardholdername',
  // free text
  'description',
  'memo',
  'note',
  'notes',
  'comment',
  'comments',
  'remark',
  'remarks',
  'narrative',
  'purpose',
  'reference',
  'remittanceinformation',
  // account and card numbers, IBANs
  'accountnumber',
  'accountno',
  'bankaccountnumber',
  'routingnumber',
  'sortcode',
  'cardnumber',
  'cardno',
  'pan',
  'iban',
  // contact details and tax numbers
  'phone',
  'phonenumber',
  'mobile',
  'address',
  'street',
  'taxid',
  'ssn',
];

const DEFAULT_SET = new Set(DEFAULT_REDACTED_FIELDS);

/**
 * Ids are kept by the field rules: `id`, and any name ending in Id, Ids, ID, _id or _ids (the spec's
 * userId, categoryId, deletedIds), so that joins rest on them.
 */
export function isIdField(name: string): boolean {
  return name === 'id' || /(?:[a-z0-9]Ids?|ID|IDs|_ids?|-ids?)$/.test(name);
}

/**
 * What paging rests on, never redacted whatever it holds: an item's id, the envelope's deletedIds,
 * cursor and lastUpdatedDate. Any other id that holds an e-mail address (a userId, say) is hashed, and
 * still joins: equal values hash equal.
 */
export function isPagingField(name: string): boolean {
  return name === 'id' || name === 'deletedIds' || name === 'cursor' || name === 'lastUpdatedDate';
}

/** One segment of a JSON path: a key, any key or index, an index, or "at any depth from here". */
type PathStep = { key: string } | { any: true } | { index: number } | { descend: true };

/** A rule given by the user: a field name at any depth, or a JSON path from the document's root. */
export type RedactRule = { field: string } | { path: PathStep[]; text: string };

const MAX_RULES = 200;
const MAX_RULE_LENGTH = 200;

function pathError(text: string, why: string): Error {
  return usageError(`cannot read the redaction rule "${text.slice(0, 80)}": ${why}`, 'invalid_redact_rule');
}

/** The steps a JSON path may take, tried in order: each a pattern and the steps it stands for. */
const PATH_STEPS: ReadonlyArray<readonly [RegExp, (match: RegExpExecArray) => PathStep[]]> = [
  [/^\.\.([A-Za-z0-9_$-]+)/, (match) => [{ descend: true }, { key: match[1] as string }]],
  [/^(?:\.\*|\[\*\])/, () => [{ any: true }]],
  [/^\.([A-Za-z0-9_$-]+)/, (match) => [{ key: match[1] as string }]],
  [/^\[(\d{1,9})\]/, (match) => [{ index: Number(match[1]) }]],
  [/^\[(?:'([^']*)'|"([^"]*)")\]/, (match) => [{ key: (match[1] ?? match[2]) as string }]],
];

/** `$.data[*].note`, `$..iban`, `$.eventData['payer name']`, `$.items[0].memo`. */
function parsePath(text: string): PathStep[] {
  const steps: PathStep[] = [];
  let rest = text.slice(1);
  while (rest.length > 0) {
    const found = PATH_STEPS.map(([pattern, make]) => ({ match: pattern.exec(rest), make })).find(
      (entry) => entry.match,
    );
    if (!found?.match) throw pathError(text, `"${rest.slice(0, 20)}" is not a path step`);
    steps.push(...found.make(found.match));
    rest = rest.slice(found.match[0].length);
  }
  if (steps.length === 0) throw pathError(text, 'the path names no field');
  const last = steps.at(-1);
  if (last && 'key' in last && isPagingField(last.key))
    throw pathError(text, `${last.key} is kept so that paging still works`);
  return steps;
}

/** The rules of `--redact FIELD[,FIELD...]`: field names and JSON paths, checked once. */
export function parseRedactRules(specs: readonly string[]): RedactRule[] {
  const rules: RedactRule[] = [];
  for (const text of specs.flatMap((spec) => spec.split(',')).map((part) => part.trim())) {
    // `defaults` names the default set alone (--redact defaults): it always applies.
    if (text === '' || text === 'defaults') continue;
    if (text.length > MAX_RULE_LENGTH) throw pathError(text, `it is longer than ${MAX_RULE_LENGTH} characters`);
    if (text.startsWith('$')) rules.push({ path: parsePath(text), text });
    else if (!/^[A-Za-z0-9_$ -]+$/.test(text))
      throw pathError(text, 'a field name holds letters, digits, _, - and spaces only');
    else if (isPagingField(text)) throw pathError(text, `${text} is kept so that paging still works`);
    else rules.push({ field: normaliseFieldName(text) });
  }
  if (rules.length > MAX_RULES) throw usageError(`more than ${MAX_RULES} redaction rules`, 'invalid_redact_rule');
  return rules;
}

/** Whether `steps` (a path pattern) matches `at` (the keys and indexes from the root to a value). */
function pathMatches(steps: readonly PathStep[], at: ReadonlyArray<string | number>, s = 0, a = 0): boolean {
  if (s === steps.length) return a === at.length;
  const step = steps[s] as PathStep;
  if ('descend' in step) {
    for (let from = a; from <= at.length; from += 1) if (pathMatches(steps, at, s + 1, from)) return true;
    return false;
  }
  if (a === at.length) return false;
  const here = at[a];
  const fits =
    'any' in step ||
    ('index' in step && here === step.index) ||
    ('key' in step && typeof here === 'string' && here === step.key);
  return fits && pathMatches(steps, at, s + 1, a + 1);
}

/** Whether the field at `at` (its name last) is personal by the defaults or one of the rules. */
export function fieldIsRedacted(rules: readonly RedactRule[], at: ReadonlyArray<string | number>): boolean {
  const name = at.at(-1);
  if (typeof name !== 'string' || isPagingField(name)) return false;
  const normalised = normaliseFieldName(name);
  if (DEFAULT_SET.has(normalised) && !isIdField(name)) return true;
  return rules.some((rule) => ('field' in rule ? rule.field === normalised : pathMatches(rule.path, at)));
}

/** Something@somewhere.tld, anywhere in the text. */
const EMAIL = /[^\s@<>()[\]"',;:]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}/;

/** ISO 13616: two letters, two check digits, up to 30 letters or digits; mod 97 of the rearranged number is 1. */
function isIban(text: string): boolean {
  const compact = text.replace(/ /g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const digits = /\d/.test(char) ? char : String(char.charCodeAt(0) - 55);
    for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

/**
 * A card number: 14 to 19 digits (spaces or dashes between groups allowed) that pass the Luhn check.
 * Never 13 digits: a millisecond timestamp has 13, and one in ten would pass.
 */
function isCardNumber(text: string): boolean {
  if (!/^\d(?:[ -]?\d){13,18}$/.test(text)) return false;
  const digits = text.replace(/[ -]/g, '');
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** A whole string that is an IBAN or a card number. */
export function isAccountNumber(text: string): boolean {
  return text.length >= 14 && text.length <= 42 && (isIban(text) || isCardNumber(text));
}

/** A string that is personal whatever field holds it: one holding an e-mail address, an IBAN, a card number. */
export function valueIsPersonal(text: string): boolean {
  return text.length >= 6 && (EMAIL.test(text) || isAccountNumber(text));
}

/** Every e-mail address in a text, replaced. */
export function replaceEmails(text: string, replace: (email: string) => string): string {
  return text.replace(new RegExp(EMAIL.source, 'g'), replace);
}
