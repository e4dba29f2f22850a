/** Spec section 9: separate sandbox and production environments, each with its own secret and base address. */
export const ENVIRONMENTS = ['sandbox', 'production'] as const;
export type EnvironmentName = (typeof ENVIRONMENTS)[number];

/** The settings each environment can hold; `secret: true` ones are masked in every output. */
export const SETTING_KEYS = {
  baseUrl: { secret: false, describe: 'API root, e.g. https://sandbox.example.com/rest/v5' },
  webhookSecret: { secret: true, describe: 'the webhook_secret the API team sent for this environment' },
  token: { secret: true, describe: 'bearer access token for the list endpoints' },
  headerName: { secret: false, describe: 'name of the verification header (default Service-Verification)' },
  tokensFile: {
    secret: false,
    describe: 'JSON file mapping userId to access token, for listen --sync with several users',
  },
} as const;
export type SettingKey = keyof typeof SETTING_KEYS;

export type EnvironmentSettings = Partial<Record<SettingKey, string>>;

export function isEnvironmentName(value: string): value is EnvironmentName {
  return (ENVIRONMENTS as readonly string[]).includes(value);
}

export function isSettingKey(value: string): value is SettingKey {
  return Object.hasOwn(SETTING_KEYS, value);
}
