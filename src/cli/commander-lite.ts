/**
 * A stand-in for the part of commander that a command's definition uses, to parse that command's plain
 * command lines without loading commander (issue 23: a cold `verify` spent ~12 ms of its ~58 ms on
 * commander, the 156 kB start chunk that holds it, and building the program). verify-start.ts runs
 * verify's own definition (commands/verify/definition.ts) against it: the bundle of that start maps
 * '@commander-js/extra-typings' here (scripts/bundle-cli.mjs), so the flags, defaults and parsers are
 * the definition's own and no table restates them.
 *
 * It parses only what it can parse exactly as commander 14 does and answers `undefined` for anything
 * else, which then goes to commander (main.ts): so every error message, `--help`, `--version`, a global
 * flag, `--`, a short flag, a value that looks like a flag (commander's program would read it as its
 * own: `-v` in any place prints the version), a bad value, a missing one, an extra argument. Its
 * parses are checked against commander's (test/unit/commander-lite.test.ts).
 */

type ParseArg = (value: string, previous: unknown) => unknown;
type Action = (...args: unknown[]) => unknown;

/** Thrown by option parsers (parsers.ts) for a bad value; here it only means "let commander say it". */
export class InvalidArgumentError extends Error {}

/** What outcome.ts recognises as commander's own exit; nothing here throws it (commander does that). */
export class CommanderError extends Error {}

/** A definition uses a part of commander this stand-in does not copy: its command lines go to commander. */
class Unsupported extends Error {}

/** commander's camelcase of a long flag's name: `--ignore-expiry` → `ignoreExpiry`. */
function attributeName(long: string): string {
  return long
    .slice(2)
    .split('-')
    .reduce((name, word) => name + (word[0] ?? '').toUpperCase() + word.slice(1));
}

/** The fields of commander's Option that a parse reads (commander's own Option has them too). */
interface OptionLike {
  long?: string | undefined;
  short?: string | undefined;
  required: boolean;
  optional: boolean;
  variadic: boolean;
  negate: boolean;
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

  attributeName(): string {
    return attributeName(this.long ?? '');
  }

  argParser(parse: ParseArg): this {
    this.parseArg = parse;
    return this;
  }

  default(value: unknown): this {
    this.defaultValue = value;
    return this;
  }

  choices(values: readonly string[]): this {
    this.parseArg = (value) => {
      if (!values.includes(value)) throw new InvalidArgumentError(value);
      return value;
    };
    return this;
  }
}

/** The parse of a plain command line: run it to run the command's action. */
export interface PlainCommand {
  command: ParsedLine;
  act(): Promise<unknown>;
}

type Values = Map<string, { value: unknown; source: 'default' | 'cli' }>;

/** One parse's values, asked as commander's command is asked (secret-flag-warnings.ts). */
class ParsedLine {
  constructor(
    private readonly commandName: string,
    private readonly values: Values,
  ) {}

  name(): string {
    return this.commandName;
  }

  getOptionValue(key: string): unknown {
    return this.values.get(key)?.value;
  }

  getOptionValueSource(key: string): 'default' | 'cli' | undefined {
    return this.values.get(key)?.source;
  }

  opts(): Record<string, unknown> {
    return Object.fromEntries([...this.values].map(([key, { value }]) => [key, value]));
  }
}

export class Command {
  readonly commands: Command[] = [];
  private readonly options: OptionLike[] = [];
  /** The defaults; each parse starts from a copy, so that one definition serves many parses. */
  private readonly defaults: Values = new Map();
  private argumentCount = 0;
  private requiredArguments = 0;
  private handler: Action | undefined;

  constructor(private readonly commandName = '') {}

  name(): string {
    return this.commandName;
  }

  command(name: string): Command {
    if (!/^[a-z][a-z-]*$/.test(name)) throw new Unsupported(name);
    const sub = new Command(name);
    this.commands.push(sub);
    return sub;
  }

  summary(_text: string): this {
    return this;
  }

  description(_text: string): this {
    return this;
  }

  addHelpText(_position: string, _text: string): this {
    return this;
  }

  argument(name: string, _description?: string): this {
    if (name.includes('...') || !/^(<[\w-]+>|\[[\w-]+\])$/.test(name)) throw new Unsupported(name);
    if (name.startsWith('<')) {
      if (this.argumentCount > this.requiredArguments) throw new Unsupported(name);
      this.requiredArguments += 1;
    }
    this.argumentCount += 1;
    return this;
  }

  option(flags: string, description?: string, parseOrDefault?: unknown, defaultValue?: unknown): this {
    const option = new Option(flags, description);
    if (typeof parseOrDefault === 'function') option.default(defaultValue).argParser(parseOrDefault as ParseArg);
    else option.default(parseOrDefault);
    return this.addOption(option);
  }

  /**
   * Takes this file's Option or commander's own (a test runs the definition with commander's). A short
   * flag, an optional or variadic value or a negation (--no-x) is commander's to parse.
   */
  addOption(option: OptionLike): this {
    const { long } = option;
    if (long === undefined || option.short !== undefined || option.variadic || option.negate)
      throw new Unsupported(long ?? '');
    if (option.optional && !option.required) throw new Unsupported(long);
    if (this.options.some((known) => known.long === long)) throw new Unsupported(long);
    this.options.push(option);
    if (option.defaultValue !== undefined)
      this.defaults.set(option.attributeName(), { value: option.defaultValue, source: 'default' });
    return this;
  }

  action(action: Action): this {
    this.handler = action;
    return this;
  }

  /** `args` as commander would parse them (the command's name first), or undefined: ask commander. */
  parsePlain(args: readonly string[]): PlainCommand | undefined {
    const sub = this.commands.find((command) => command.name() === args[0]);
    return sub?.parseOwn(args.slice(1));
  }

  private parseOwn(args: readonly string[]): PlainCommand | undefined {
    const action = this.handler;
    if (!action) return undefined;
    const values: Values = new Map(this.defaults);
    const operands: string[] = [];
    let index = 0;
    while (index < args.length) {
      const arg = args[index++] as string;
      if (!looksLikeFlag(arg)) {
        operands.push(arg);
        continue;
      }
      const equals = arg.indexOf('=');
      const flag = equals > 2 ? arg.slice(0, equals) : arg;
      const option = this.options.find((known) => known.long === flag);
      if (!option || (equals > 2 && !option.required)) return undefined;
      let value: string | undefined;
      if (equals > 2) value = arg.slice(equals + 1);
      else if (option.required) {
        value = args[index++];
        if (value === undefined || looksLikeFlag(value)) return undefined;
      }
      if (!setOption(values, option, value)) return undefined;
    }
    if (operands.length > this.argumentCount || operands.length < this.requiredArguments) return undefined;
    const actionArgs: unknown[] = Array.from({ length: this.argumentCount }, (_, at) => operands[at]);
    const line = new ParsedLine(this.commandName, values);
    return { command: line, act: async () => action(...actionArgs, line.opts(), line) };
  }
}

/** As commander's option listener: the parser gets the value so far (a default or an earlier flag). */
function setOption(values: Values, option: OptionLike, given: string | undefined): boolean {
  const key = option.attributeName();
  let value: unknown = given ?? true;
  if (given !== undefined && option.parseArg) {
    try {
      value = option.parseArg(given, values.get(key)?.value);
    } catch {
      return false; // commander says what is wrong with it, in its words
    }
  }
  values.set(key, { value, source: 'cli' });
  return true;
}

/**
 * commander's own test for an option (`arg.length > 1 && arg[0] === '-'`), applied to values too:
 * commander's program reads every such argument, wherever it stands, as a possible flag of its own.
 * `--`, which commander's program takes for the end of its flags, is one.
 */
function looksLikeFlag(arg: string): boolean {
  return arg.length > 1 && arg.startsWith('-');
}
