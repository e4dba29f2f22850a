import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { DEFAULT_MOCK_PORT, DEFAULT_MOCK_TOKEN } from '../defaults.js';
import type { EnvironmentName } from '../settings/environments.js';
import type { SettingsStore } from '../settings/settings-store.js';
import { defaultConfigDir } from '../settings/config-dir.js';
import { firstTimeFor } from '../settings/notices.js';
import { type CliContext, writeLine } from './context.js';
import { keyFile } from './key-file.js';

/**
 * The `local` environment: `ledgerhook mock` at its default address with its token, and a
 * development webhook secret made on first use (as the Stripe CLI does for `listen`). Only `local`
 * ever uses these: sandbox and production never fall back to them.
 */
export const LOCAL_BASE_URL = `http://127.0.0.1:${DEFAULT_MOCK_PORT}/rest/v5`;
export const LOCAL_TOKEN = DEFAULT_MOCK_TOKEN;

const told = new WeakSet<CliContext>();

/** Whether something accepts connections on the mock's default port (a 300 ms try, loopback only). */
export async function mockAnswers(): Promise<boolean> {
  // node:net only when asked: this file is on `verify`'s start, which never probes.
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: DEFAULT_MOCK_PORT });
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(300, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The configuration directory of this run: where the settings, the local secret and the notes said live. */
export function configDirOf(env: NodeJS.ProcessEnv): string {
  return env.LEDGERHOOK_CONFIG_DIR || defaultConfigDir(env);
}

/** Says once per configuration (notices.ts), not on every run, that local defaults are in use and why. */
export function announceLocal(ctx: CliContext, what: string): void {
  if (told.has(ctx)) return;
  told.add(ctx);
  if (!firstTimeFor(configDirOf(ctx.env), 'local-environment')) return;
  writeLine(
    ctx.stderr,
    ctx.color.dim(
      `using the local environment (${what}): nothing is set for sandbox or production yet; \`ledgerhook config set baseUrl URL\` makes sandbox the default`,
    ),
  );
}

/** The environment when neither --env nor LEDGERHOOK_ENV names one: local until anything is configured. */
export function defaultEnvironment(store: SettingsStore): EnvironmentName {
  const configured = (['sandbox', 'production'] as const).some((env) => Object.keys(store.environment(env)).length > 0);
  return configured ? 'sandbox' : 'local';
}

/**
 * The local development secret, in a file of its own beside the settings (mode 0600): created on
 * first use when `create`, else only read. The value is never printed: the user's app reads the file.
 */
export function localWebhookSecret(
  store: SettingsStore,
  ctx: CliContext,
  create: boolean,
): { secret: string; file: string } | undefined {
  const file = join(dirname(store.path), 'local-webhook.secret');
  const make = create ? () => `whsec_${randomBytes(32).toString('hex')}` : undefined;
  const found = keyFile(file, 'local development secret', make);
  if (found?.created)
    writeLine(
      ctx.stderr,
      `created a local development webhook secret in ${file} (used only with the local environment; sandbox and production never use it). Give it to your app: WEBHOOK_SECRET="$(cat '${file}')"`,
    );
  return found && { secret: found.value, file };
}
