import { captureBody, type CaptureRecord } from '../capture/capture-record.js';
import { DEFAULT_HEADER_NAME, DEFAULT_TOLERANCE_SECONDS } from '../defaults.js';
import { MAX_TOLERANCE_SECONDS } from '../settings/setting-values.js';
import type { EnvironmentSettings } from '../settings/environments.js';
import type { LabelledSecret } from '@ledgerhook/webhooks';
import { isHeaderName } from '../util/header-name.js';
import { parseToken } from '@ledgerhook/webhooks/advanced';
import { verifyWebhook } from '@ledgerhook/webhooks';
import type { ProbeFinding } from './probe-types.js';
import { implySetting } from './setting-fit.js';

/** A header value that is a JWT, perhaps after a scheme ("Bearer eyJ…"). */
const TOKEN_VALUE = /^(?:([A-Za-z][A-Za-z0-9_-]{0,30})[ \t]+)?([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

interface Carried {
  name: string;
  prefix: string;
  jwt: string;
  iat: number | undefined;
}

/** The header of a captured delivery that carries a JWT: the one the listener was told, else any. */
function carried(record: CaptureRecord): Carried | undefined {
  // A capture file is anyone's: only a name that can be a header name may become the headerName setting.
  const names = [record.headerName.toLowerCase(), ...Object.keys(record.headers)].filter(
    (name) => name.length <= 100 && isHeaderName(name),
  );
  for (const name of new Set(names)) {
    const value = record.headers[name];
    if (typeof value !== 'string') continue;
    const match = TOKEN_VALUE.exec(value.trim());
    const jwt = match?.[2];
    if (!match || jwt === undefined) continue;
    const parsed = parseToken(jwt);
    if (!parsed.ok || typeof parsed.parts.header.alg !== 'string') continue;
    const iat = parsed.parts.claims.iat;
    return { name, prefix: match[1] ? `${match[1]} ` : '', jwt, iat: typeof iat === 'number' ? iat : undefined };
  }
  return undefined;
}

/** How a body is serialised: as JSON.stringify writes it, pretty-printed, with a trailing newline... */
function serialisation(body: string): string {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return 'not JSON';
  }
  const compact = JSON.stringify(value);
  const forms: Array<[string, string]> = [
    ['compact JSON', compact],
    ['pretty-printed JSON (2 spaces)', JSON.stringify(value, null, 2)],
    ['pretty-printed JSON (4 spaces)', JSON.stringify(value, null, 4)],
    ['pretty-printed JSON (tabs)', JSON.stringify(value, null, '\t')],
  ];
  for (const [name, text] of forms) {
    if (body === text) return name;
    if (body === `${text}\n` || body === `${text}\r\n`) return `${name} with a trailing newline`;
  }
  if (/\\u[0-9a-fA-F]{4}/.test(body) && compact.length < body.length) return 'JSON with non-ASCII escaped as \\uXXXX';
  return 'JSON with spacing of its own';
}

const headerCase = (name: string) =>
  name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('-');

const mostCommon = (values: readonly string[]) => {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
};

export interface WebhookProbeOptions {
  settings: EnvironmentSettings;
  secrets: readonly LabelledSecret[];
  /** The label of the environment probed among `secrets`. */
  environment?: string | undefined;
}

/**
 * What captured deliveries say about the service's webhooks: the header and prefix the JWT comes in,
 * the iat against the time each was received (and the tolerance that covers it), how bodies are
 * serialised, and which stored secret verifies them (named by its label, never shown).
 */
export async function webhookFindings(
  records: readonly CaptureRecord[],
  options: WebhookProbeOptions,
): Promise<ProbeFinding[]> {
  const usable = records.filter((record) => !record.bodyTruncated && record.editedFrom === undefined);
  const tokens = usable.flatMap((record) => {
    const found = carried(record);
    return found ? [{ record, ...found }] : [];
  });
  const findings: ProbeFinding[] = [];
  const add = (finding: Omit<ProbeFinding, 'area'>) => findings.push({ area: 'webhooks', ...finding });
  if (tokens.length === 0) {
    add({
      id: 'webhook.header',
      observed: `none of the ${usable.length} captured deliveries carries a JWT in any header`,
      problem: 'capture deliveries the service sent (listen --capture) to learn how it signs them',
    });
    return findings;
  }
  const [name = DEFAULT_HEADER_NAME, named = 0] = mostCommon(tokens.map((token) => token.name)) ?? [];
  const custom = name.toLowerCase() !== DEFAULT_HEADER_NAME.toLowerCase();
  add({
    id: 'webhook.header',
    quirk: custom ? 'custom-header-name' : undefined,
    observed: `${named} of ${usable.length} captured deliveries carry the JWT in ${headerCase(name)}`,
    setting: implySetting('headerName', headerCase(name), options.settings, true),
  });
  const [prefix = ''] = mostCommon(tokens.map((token) => token.prefix)) ?? [];
  if (prefix !== '')
    add({
      id: 'webhook.prefix',
      quirk: 'verification-prefix',
      observed: `the JWT comes after ${JSON.stringify(prefix)} (spec 5.2 shows the bare JWT)`,
      setting: implySetting('verificationPrefix', prefix, options.settings, true),
    });
  else if (options.settings.verificationPrefix !== undefined)
    add({
      id: 'webhook.prefix',
      observed: `the JWT comes bare, but verificationPrefix is set (${JSON.stringify(options.settings.verificationPrefix)}): every delivery is refused as malformed`,
      problem: 'unset verificationPrefix',
    });
  const verified = await verifyAll(tokens, options.secrets, options.environment);
  findings.push(...verified.findings);
  const ages = (verified.ok.length > 0 ? verified.ok : tokens).flatMap(({ record, iat }) =>
    iat === undefined ? [] : [Math.floor(Date.parse(record.receivedAt) / 1000) - iat].filter(Number.isFinite),
  );
  if (ages.length > 0) {
    const oldest = Math.max(...ages);
    const newest = Math.min(...ages);
    const needed = Math.max(oldest + 1, -newest);
    const tolerance = Math.max(DEFAULT_TOLERANCE_SECONDS, Math.ceil((needed + 60) / 60) * 60);
    const fitting = tolerance <= MAX_TOLERANCE_SECONDS;
    add({
      id: 'webhook.iat',
      quirk: needed >= DEFAULT_TOLERANCE_SECONDS || newest < -5 ? 'iat-skew' : undefined,
      observed: `iat against receipt: from ${newest} s to ${oldest} s old (${ages.length} deliveries${newest < 0 ? '; a negative age is an iat ahead of this clock' : ''})`,
      ...(fitting
        ? { setting: implySetting('tolerance', String(tolerance), options.settings, true) }
        : {
            problem: `no tolerance up to a day fits deliveries ${needed} s apart from this clock: check the clocks, and whether the capture holds replays`,
          }),
    });
  }
  const forms = [...new Set(tokens.map(({ record }) => serialisation(captureBody(record).toString('utf8'))))];
  add({
    id: 'webhook.body',
    quirk: forms.some((form) => form !== 'compact JSON') ? 'body-not-compact' : undefined,
    observed: `bodies are ${forms.join(', ')}: request_body_sha256 is over these exact bytes, so a receiver hashes the raw body, never JSON it serialised again`,
  });
  return findings;
}

/** Which stored secret verifies the deliveries: the environment's own, another's, or none. */
async function verifyAll(
  tokens: ReadonlyArray<{ record: CaptureRecord } & Carried>,
  secrets: readonly LabelledSecret[],
  environment: string | undefined,
) {
  const findings: ProbeFinding[] = [];
  if (secrets.length === 0) {
    findings.push({
      area: 'webhooks',
      id: 'webhook.secret',
      observed: 'no webhook secret is stored: whether the deliveries verify is not known',
      problem: 'store the webhook_secret the API team sent for this environment (webhookSecret)',
    });
    return { ok: [], findings };
  }
  const ok: Array<(typeof tokens)[number]> = [];
  const labels = new Map<string, number>();
  for (const token of tokens) {
    const result = await verifyWebhook({
      body: captureBody(token.record),
      token: token.jwt,
      secrets,
      ignoreExpiry: true,
      diagnose: false,
    });
    if (!result.ok) continue;
    ok.push(token);
    const label = result.secretLabel ?? 'an unnamed secret';
    labels.set(label, (labels.get(label) ?? 0) + 1);
  }
  const own = environment === undefined ? 0 : (labels.get(environment) ?? 0);
  const others = [...labels.entries()].filter(([label]) => label !== environment);
  const verifiedBy = [...labels.entries()].map(([label, count]) => `${count} with the secret stored for ${label}`);
  const none = tokens.length - ok.length;
  const observed = `of ${tokens.length} signed deliveries, ${[...verifiedBy, ...(none > 0 ? [`${none} with none of the stored secrets (${secrets.map((secret) => secret.label ?? 'unnamed').join(', ')})`] : [])].join(', ')}`;
  findings.push({
    area: 'webhooks',
    id: 'webhook.secret',
    quirk: own === 0 && others.length > 0 ? 'secret-of-another-environment' : undefined,
    observed,
    ...(own > 0
      ? {}
      : {
          problem:
            others.length > 0
              ? `they verify with ${others.map(([label]) => label).join(' or ')}'s secret, not ${environment ?? 'this environment'}'s: store that webhook_secret for ${environment ?? 'this environment'} (webhookSecret), or probe the environment they belong to`
              : 'no stored secret verifies them: store the webhook_secret the API team sent for this environment (webhookSecret)',
        }),
  });
  return { ok, findings };
}
