/**
 * A stand-in for the part of commander that the command definitions use, to parse a command's plain
 * command lines without loading commander (issue 23: for a cold `verify`, commander, the start chunk
 * that held it and building the program were ~12 ms of ~58). main.ts runs the named command's own
 * definition against it, so the flags, defaults and parsers are the definition's and no table restates
 * them; definitions therefore make options with `command.createOption`, never commander's class.
 *
 * It parses only what it can parse exactly as commander 14 does and answers `undefined` for anything
 * else, which then goes to commander: every error message, `--help`, `--version`, a global flag, `--`,
 * a short flag, a value that looks like a flag (commander's program reads any such argument as its own:
 * `-v` in any place prints the version), a bad value, a missing one, an extra argument, anything but a
 * subcommand's name right after its command's. A definition that uses more of commander than this
 * copies throws here (a missing method is a TypeError): that command then always goes to commander.
 * Its parses are checked against commander's for every command (test/unit/commander-lite.test.ts).
 */

import { Option, type OptionLike, type ParseArg, Unsupported } from './commander-lite-option.js';

export { Option };

type Action = (...args: unknown[]) => unknown;
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

/** The parse of a plain command line: act() runs the command's action with it. */
export interface PlainCommand {
  command: ParsedLine;
  act(): Promise<unknown>;
}

interface ArgumentSpec {
  required: boolean;
  defaultValue: unknown;
  parseArg: ParseArg | undefined;
}

export class Command {
  readonly commands: Command[] = [];
  private readonly options: OptionLike[] = [];
  private readonly args: ArgumentSpec[] = [];
  /** The defaults; each parse starts from a copy, so that one definition serves many parses. */
  private readonly defaults: Values = new Map();
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

  /** As commander reads an argument's name: `<x>` required, `[x]` optional, `x...` variadic (commander's). */
  argument(name: string, _description?: string, parseOrDefault?: unknown, defaultValue?: unknown): this {
    const required = name.startsWith('<');
    if (!/^(<.+>|\[.+\])$/.test(name) || name.slice(1, -1).endsWith('...')) throw new Unsupported(name);
    // commander refuses a required argument after an optional one when it is defined.
    if (required && this.args.some((arg) => !arg.required)) throw new Unsupported(name);
    const parse = typeof parseOrDefault === 'function';
    this.args.push({
      required,
      defaultValue: parse ? defaultValue : parseOrDefault,
      parseArg: parse ? (parseOrDefault as ParseArg) : undefined,
    });
    return this;
  }

  createOption(flags: string, description?: string): Option {
    return new Option(flags, description);
  }

  option(flags: string, description?: string, parseOrDefault?: unknown, defaultValue?: unknown): this {
    const option = new Option(flags, description);
    if (typeof parseOrDefault === 'function') option.default(defaultValue).argParser(parseOrDefault as ParseArg);
    else option.default(parseOrDefault);
    return this.addOption(option);
  }

  requiredOption(flags: string, description?: string, parseOrDefault?: unknown, defaultValue?: unknown): this {
    this.option(flags, description, parseOrDefault, defaultValue);
    const added = this.options.at(-1);
    if (added) added.mandatory = true;
    return this;
  }

  /**
   * Takes this file's Option or commander's own (a test runs the definitions with commander's). A short
   * flag, an optional or variadic value, or a negation beside its positive flag is commander's to parse.
   */
  addOption(option: OptionLike): this {
    const { long } = option;
    if (long === undefined || option.short !== undefined || option.variadic) throw new Unsupported(long ?? '');
    if ((option.optional && !option.required) || this.options.some((known) => known.long === long))
      throw new Unsupported(long);
    // A negation (--no-x) alone, as commander has it: x is true unless given; beside its --x, commander's.
    if (option.negate && (option.required || this.options.some((known) => known.long === `--${long.slice(5)}`)))
      throw new Unsupported(long);
    if (!option.negate && this.options.some((known) => known.negate && known.long === `--no-${long.slice(2)}`))
      throw new Unsupported(long);
    this.options.push(option);
    const initial = option.negate ? (option.defaultValue ?? true) : option.defaultValue;
    if (initial !== undefined) this.defaults.set(option.attributeName(), { value: initial, source: 'default' });
    return this;
  }

  action(action: Action): this {
    this.handler = action;
    return this;
  }

  /** `args` as commander would parse them (the command's name first), or undefined: ask commander. */
  parsePlain(args: readonly string[]): PlainCommand | undefined {
    const sub = this.commands.find((command) => command.name() === args[0]);
    if (!sub || sub.commands.length === 0) return sub?.parseOwn(args.slice(1));
    // A command of subcommands (`state list`): commander hands everything after the subcommand's name to
    // it when the command has no flags or action of its own; the name must come right after (`state
    // --json list` and `state help list` are commander's to explain).
    if (sub.options.length > 0 || sub.handler) return undefined;
    return sub.commands.find((command) => command.name() === args[1])?.parseOwn(args.slice(2));
  }

  private parseOwn(args: readonly string[]): PlainCommand | undefined {
    const action = this.handler;
    if (!action || this.commands.length > 0) return undefined;
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
    if (this.options.some((option) => option.mandatory && values.get(option.attributeName()) === undefined))
      return undefined;
    if (operands.length > this.args.length) return undefined;
    const actionArgs: unknown[] = [];
    for (const [at, spec] of this.args.entries()) {
      const given = operands[at];
      if (given === undefined && spec.required) return undefined;
      let value = given ?? spec.defaultValue;
      if (given !== undefined && spec.parseArg) {
        try {
          value = spec.parseArg(given, spec.defaultValue);
        } catch {
          return undefined;
        }
      }
      actionArgs.push(value);
    }
    const line = new ParsedLine(this.commandName, values);
    return { command: line, act: async () => action(...actionArgs, line.opts(), line) };
  }
}

/** As commander's option listener: the parser gets the value so far (a default or an earlier flag). */
function setOption(values: Values, option: OptionLike, given: string | undefined): boolean {
  const key = option.attributeName();
  let value: unknown = given ?? !option.negate;
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
