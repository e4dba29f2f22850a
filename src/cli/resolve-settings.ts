import { LedgerhookError, usageError } from '../errors.js';
import { checkEntityPaths, type EntityPaths } from '../catalogue/entity-paths.js';
import { ENVIRONMENTS, isEnvironmentName, storedEntityPaths, type EnvironmentName } from '../settings/environments.js';
import type { SettingsStore } from '../settings/settings-store.js';
import type { LabelledSecret } from '@ledgerhook/webhooks';
import { DEFAULT_HEADER_NAME } from '../defaults.js';
import { validateVerificationPrefix } from '@ledgerhook/webhooks/advanced';
import type { CliContext } from './context.js';
import { announceLocal, defaultEnvironment, localWebhookSecret } from './local-environment.js';
import { readInputFile, withoutTrailingLineBreaks } from './read-input.js';
import { isHeaderName } from '../util/header-name.js';

/** Flags shared by every command that needs a webhook secret. */
export interface SecretFlags {
  secret?: string[];
  secretFile?: string;
  env?: string;
  headerName?: string;
  verificationPrefix?: string;
}

const stores = new WeakMap<CliContext, SettingsStore>();

/**
 * The settings, opened once per command and only when it needs them; `write` for config set and
 * unset (conf, ~100 ms to load, is loaded only then; reading is a plain JSON read).
 */
export async function settingsStore(ctx: CliContext, mode: 'read' | 'write' = 'read'): Promise<SettingsStore> {
  let store = stores.get(ctx);
  if (!store || (mode === 'write' && !store.writable)) {
    const { SettingsStore } = await import('../settings/settings-store.js');
    const dir = ctx.env.LEDGERHOOK_CONFIG_DIR;
    store = await SettingsStore.open(dir ? { dir } : {}, mode);
    stores.set(ctx, store);
  }
  return store;
}

/**
 * The entity list paths stored for the environment (`config set paths.expense /expenses/expenses`),
 * checked: every command that turns an entity into a request uses these.
 */
export async function resolveEntityPaths(flags: { env?: string | undefined }, ctx: CliContext): Promise<EntityPaths> {
  const settings = (await settingsStore(ctx)).environment(await resolveEnvironment(flags.env, ctx));
  return checkEntityPaths(storedEntityPaths(settings));
}

/** --env, then LEDGERHOOK_ENV, then sandbox once anything is configured for sandbox or production, else local. */
export async function resolveEnvironment(flag: string | undefined, ctx: CliContext): Promise<EnvironmentName> {
  const value = flag ?? ctx.env.LEDGERHOOK_ENV;
  if (value === undefined) return defaultEnvironment(await settingsStore(ctx));
  if (!isEnvironmentName(value))
    throw usageError(`unknown environment "${value}": use ${ENVIRONMENTS.join(', ')}`, 'unknown_environment');
  return value;
}

/** A secret file, without the line breaks at its end (withoutTrailingLineBreaks): the one reader of secret files. */
async function readSecretFile(path: string): Promise<string> {
  const secret = withoutTrailingLineBreaks((await readInputFile(path, 'secret file')).toString('utf8'));
  if (secret.trim() === '')
    throw usageError(
      // The advice (error-advice.ts, empty_secret) says what to write into it: not said twice.
      `the secret file ${path} is ${secret === '' ? 'empty' : 'only whitespace'}`,
      'empty_secret',
    );
  return secret;
}

/**
 * An empty or blank secret would make every delivery fail as forged (or sign with a key anyone can
 * guess): it is refused where it is given, naming where it came from.
 */
function usableSecret(secret: string, from: string): string {
  if (secret.trim() === '')
    throw usageError(
      `the webhook secret from ${from} is ${secret === '' ? 'empty' : 'only whitespace'}`,
      'empty_secret',
    );
  return secret;
}

/**
 * The secrets to verify or sign with: --secret (repeatable) and --secret-file, else
 * LEDGERHOOK_WEBHOOK_SECRET, else the stored webhookSecret of the environment.
 */
export async function resolveWebhookSecrets(
  flags: SecretFlags,
  ctx: CliContext,
  { createLocal = false } = {},
): Promise<LabelledSecret[]> {
  const fromFlags: LabelledSecret[] = (flags.secret ?? []).map((secret) => ({
    secret: usableSecret(secret, '--secret'),
  }));
  if (flags.secretFile) fromFlags.push({ secret: await readSecretFile(flags.secretFile), label: flags.secretFile });
  if (fromFlags.length > 0) return fromFlags;
  const found = await findWebhookSecret(flags, ctx, createLocal);
  if (!found) return [];
  if (found.from === 'variable')
    return [{ secret: usableSecret(found.secret, 'LEDGERHOOK_WEBHOOK_SECRET'), label: 'LEDGERHOOK_WEBHOOK_SECRET' }];
  if (found.from === 'settings') return [{ secret: found.secret, label: found.env }];
  announceLocal(ctx, 'the local development webhook secret');
  const generated = { secret: found.secret, label: 'local' };
  localDevelopmentSecrets.add(generated);
  return [generated];
}

/**
 * The webhook secret when no flag gives one: LEDGERHOOK_WEBHOOK_SECRET, then the stored webhookSecret
 * of the environment, then (local only) the generated local development secret, made when `createLocal`.
 */
export async function findWebhookSecret(
  flags: Pick<SecretFlags, 'env'>,
  ctx: CliContext,
  createLocal = false,
): Promise<
  | { secret: string; env: EnvironmentName; from: 'variable' | 'settings' }
  | { secret: string; env: EnvironmentName; from: 'local development secret'; file: string }
  | undefined
> {
  const env = await resolveEnvironment(flags.env, ctx);
  const fromEnv = ctx.env.LEDGERHOOK_WEBHOOK_SECRET;
  if (fromEnv !== undefined && fromEnv !== '') return { secret: fromEnv, env, from: 'variable' };
  const store = await settingsStore(ctx);
  const stored = store.get(env, 'webhookSecret');
  if (stored) return { secret: stored, env, from: 'settings' };
  if (env !== 'local') return undefined;
  const local = localWebhookSecret(store, ctx, createLocal);
  return local ? { secret: local.secret, env, from: 'local development secret', file: local.file } : undefined;
}

/** The secrets resolveWebhookSecrets made from the generated local development secret file. */
const localDevelopmentSecrets = new WeakSet<LabelledSecret>();

/**
 * The generated local development secret among `secrets`, if it is one: the only secret ledgerhook
 * ever prints (`listen` says it on start, as `stripe listen` says its whsec_…, for the app to use).
 * A secret given by flag, variable or setting, for any environment, is never one.
 */
export function localDevelopmentSecret(secrets: readonly LabelledSecret[]): string | undefined {
  return secrets.find((secret) => localDevelopmentSecrets.has(secret))?.secret;
}

export async function requireWebhookSecrets(
  flags: SecretFlags,
  ctx: CliContext,
  options: { createLocal?: boolean } = {},
): Promise<LabelledSecret[]> {
  const secrets = await resolveWebhookSecrets(flags, ctx, options);
  if (secrets.length === 0) {
    const env = await resolveEnvironment(flags.env, ctx);
    throw new LedgerhookError(
      'ERR_USAGE',
      `no webhook secret for ${env}: pass --secret-file FILE, set LEDGERHOOK_WEBHOOK_SECRET, or run \`ledgerhook config set webhookSecret - --env ${env}\``,
    );
  }
  return secrets;
}

/** The one secret to sign with: the first of requireWebhookSecrets. */
export async function requireSigningSecret(
  flags: SecretFlags,
  ctx: CliContext,
  options: { createLocal?: boolean } = {},
): Promise<string> {
  const [first] = await requireWebhookSecrets(flags, ctx, options);
  if (first === undefined) throw usageError('no webhook secret', 'missing_webhook_secret');
  return first.secret;
}

/** The stored secrets of the other environments: used only to explain a bad signature. */
export async function otherEnvironmentSecrets(flags: SecretFlags, ctx: CliContext): Promise<LabelledSecret[]> {
  const env = await resolveEnvironment(flags.env, ctx);
  const store = await settingsStore(ctx);
  const others: LabelledSecret[] = ENVIRONMENTS.filter((other) => other !== env).flatMap((other) => {
    const secret = store.get(other, 'webhookSecret');
    return secret ? [{ secret, label: other }] : [];
  });
  // "signed with the local development secret" is a common slip worth naming too.
  const local =
    env === 'local' || store.get('local', 'webhookSecret') ? undefined : localWebhookSecret(store, ctx, false);
  return local ? [...others, { secret: local.secret, label: 'local' }] : others;
}

/**
 * The one header-name resolution order of every command: --header-name, then LEDGERHOOK_HEADER_NAME,
 * then the stored headerName of the environment, then `fallback` (Service-Verification, or for a
 * captured delivery the name the listener recorded it under).
 */
export async function resolveHeaderName(
  flags: SecretFlags,
  ctx: CliContext,
  fallback: string = DEFAULT_HEADER_NAME,
): Promise<string> {
  const name = flags.headerName ?? ctx.env.LEDGERHOOK_HEADER_NAME;
  if (name) return validateHeaderName(name);
  const stored = (await settingsStore(ctx)).get(await resolveEnvironment(flags.env, ctx), 'headerName');
  return stored ? validateHeaderName(stored) : fallback;
}

/**
 * The verification prefix, in the same order as the header name: --verification-prefix, then
 * LEDGERHOOK_VERIFICATION_PREFIX, then the stored verificationPrefix; none by default (spec 5.2).
 */
export async function resolveVerificationPrefix(flags: SecretFlags, ctx: CliContext): Promise<string | undefined> {
  const given = flags.verificationPrefix ?? ctx.env.LEDGERHOOK_VERIFICATION_PREFIX;
  const value = given ?? (await settingsStore(ctx)).get(await resolveEnvironment(flags.env, ctx), 'verificationPrefix');
  return value ? validateVerificationPrefix(value) : undefined;
}

/** RFC 9110 token: what an HTTP header name may be. */
export function validateHeaderName(name: string): string {
  if (!isHeaderName(name))
    throw usageError(
      `"${name.slice(0, 60)}" is not a valid HTTP header name (letters, digits and !#$%&'*+.^_\`|~-)`,
      'invalid_header_name',
    );
  return name;
}
