import { InvalidArgumentError } from 'commander';

/** commander option parsers: a bad value becomes a one-line usage error (exit 2). */
export function integer(name: string, { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = {}) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`${name} takes a whole number, got "${value}".`);
    const parsed = Number(value);
    if (parsed < min || parsed > max) throw new InvalidArgumentError(`${name} must be between ${min} and ${max}, got ${parsed}.`);
    return parsed;
  };
}

export function decimal(name: string, { min = -Infinity, max = Infinity } = {}) {
  return (value: string): number => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed)) throw new InvalidArgumentError(`${name} takes a number, got "${value}".`);
    if (parsed < min || parsed > max) throw new InvalidArgumentError(`${name} must be between ${min} and ${max}, got ${parsed}.`);
    return parsed;
  };
}

/** For repeatable options: `--secret a --secret b` gives ['a', 'b']. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function oneOf<T extends string>(name: string, values: readonly T[]) {
  return (value: string): T => {
    if (!(values as readonly string[]).includes(value)) throw new InvalidArgumentError(`${name} must be one of ${values.join(', ')}, got "${value}".`);
    return value as T;
  };
}

/** The "Examples:" block every command's --help ends with. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => (line.startsWith('#') ? `  ${line}` : `  $ ${line}`)).join('\n')}\n`;
}
