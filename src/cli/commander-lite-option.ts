/**
 * commander-lite.ts's options: commander's Option as far as a plain parse reads it, made by a
 * definition's `command.createOption(...)` when commander is not loaded.
 */

export type ParseArg = (value: string, previous: unknown) => unknown;

/** A definition uses a part of commander this stand-in does not copy: its command lines go to commander. */
export class Unsupported extends Error {}

/** commander's camelcase of a long flag's name: `--ignore-expiry` → `ignoreExpiry`. */
function attributeName(long: string): string {
  return long
    .slice(2)
    .split('-')
    .reduce((name, word) => name + (word[0] ?? '').toUpperCase() + word.slice(1));
}

/** The fields of commander's Option that a parse reads (commander's own Option has them too). */
export interface OptionLike {
  long?: string | undefined;
  short?: string | undefined;
  required: boolean;
  optional: boolean;
  variadic: boolean;
  negate: boolean;
  mandatory?: boolean;
  defaultValue?: unknown;
  parseArg?: ParseArg | undefined;
  attributeName(): string;
}

export class Option implements OptionLike {
  readonly long: string | undefined;
  readonly short: string | undefined;
  /** As commander decides: required when the flags hold '<' (even `<file[:index]>`), else optional with '['. */
  readonly required: boolean;
  readonly optional: boolean;
  readonly variadic: boolean;
  readonly negate: boolean;
  mandatory = false;
  defaultValue: unknown;
  parseArg: ParseArg | undefined;

  constructor(flags: string, _description?: string) {
    this.required = flags.includes('<');
    this.optional = flags.includes('[');
    this.variadic = /\w\.\.\.[>\]]$/.test(flags);
    const words = flags.split(/[ |,]+/);
    this.long = words.find((word) => word.startsWith('--'));
    this.short = words.find((word) => /^-[^-]/.test(word));
    this.negate = this.long?.startsWith('--no-') ?? false;
  }

  /** commander's: `--no-resume` sets `resume`. */
  attributeName(): string {
    return attributeName((this.long ?? '').replace(/^--no-/, '--'));
  }

  argParser(parse: ParseArg): this {
    this.parseArg = parse;
    return this;
  }

  default(value: unknown, _description?: string): this {
    this.defaultValue = value;
    return this;
  }

  choices(values: readonly string[]): this {
    this.parseArg = (value) => {
      if (!values.includes(value)) throw new Unsupported(value);
      return value;
    };
    return this;
  }
}
