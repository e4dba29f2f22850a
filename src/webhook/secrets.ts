/** A webhook secret, optionally labelled (e.g. "sandbox", "production", "rotation #2"). */
export interface LabelledSecret {
  secret: string;
  label?: string;
}

export type SecretInput = string | LabelledSecret;

export function normaliseSecrets(input: SecretInput | readonly SecretInput[] | undefined): LabelledSecret[] {
  if (input === undefined) return [];
  const list = Array.isArray(input) ? input : [input as SecretInput];
  return list.map((entry) => (typeof entry === 'string' ? { secret: entry } : entry));
}

/** The secret is used as its UTF-8 bytes (spec 5.2: HS256 with the webhook_secret). */
export function secretKey(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/**
 * How a secret may be mentioned in output: never the secret itself.
 * Shows the first 5 characters only when the secret is long enough that they give little away.
 */
export function maskSecret(secret: string): string {
  const prefix = secret.length >= 24 ? secret.slice(0, 5) : '';
  return `${prefix}…(${secret.length} chars)`;
}

export function describeSecret(entry: LabelledSecret, index: number): string {
  return entry.label ? `the ${entry.label} secret` : `secret #${index + 1}`;
}
