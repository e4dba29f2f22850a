import {
  type AddHelpTextContext,
  type Command,
  type CommandUnknownOpts,
  Help,
  Option,
} from '@commander-js/extra-typings';
import { examples } from './parsers.js';

/**
 * How `--help` fits a screen: the top-level help lists the commands in groups (each definition names
 * its own with `.helpGroup(COMMAND_GROUPS.…)`), and a command's help shows its common options, its
 * examples and one line saying what `--help-all` adds: the advanced options (grouped by topic), and
 * any longer text (more examples, each case in detail). Built on commander's help groups and its
 * `Help` hooks (visibleOptions, groupItems); every option stays a visible, documented option, so
 * completion and the docs check see them all.
 */

/** The top-level help's groups, in the order it lists them. */
export const COMMAND_GROUPS = {
  webhooks: 'Webhooks:',
  local: 'Local development:',
  sync: 'Sync:',
  scale: 'Scale:',
  setup: 'Setup:',
} as const;

/** The heading of the advanced options no topic names. */
export const ADVANCED_OPTIONS = 'Advanced options:';
export const HELP_ALL = '--help-all';

interface Layout {
  /** The headings of the advanced options, in the order `--help-all` prints them. */
  headings: string[];
  /** What `--help-all` prints beside the advanced options ("more examples"). */
  more: string[];
}

const layouts = new WeakMap<CommandUnknownOpts, Layout>();
/** The commands whose full help is being printed (`--help-all`). */
const showingAll = new WeakSet<CommandUnknownOpts>();

function layoutOf(command: CommandUnknownOpts): Layout {
  let layout = layouts.get(command);
  if (!layout) {
    layout = { headings: [], more: [] };
    layouts.set(command, layout);
  }
  return layout;
}

/**
 * The options `command`'s default help shows are those `common` names; every other one it has is
 * advanced: under the heading in `topics` that names it, else under "Advanced options:", and printed
 * by `--help-all` only. A flag added to the definition later is advanced until `common` names it.
 */
export function layOutOptions<C extends CommandUnknownOpts>(
  command: C,
  common: readonly string[],
  topics: Readonly<Record<string, readonly string[]>> = {},
): C {
  const named = new Map<string, string | undefined>(common.map((flag) => [flag, undefined]));
  for (const [heading, flags] of Object.entries(topics))
    for (const flag of flags) {
      if (named.has(flag)) throw new Error(`${command.name()}: ${flag} is laid out twice`);
      named.set(flag, heading);
    }
  const known = new Set(command.options.map((option) => option.long));
  for (const flag of named.keys()) if (!known.has(flag)) throw new Error(`${command.name()} has no option ${flag}`);
  const headings = new Set<string>();
  for (const option of command.options) {
    if (option.long === undefined || (named.has(option.long) && named.get(option.long) === undefined)) continue;
    const heading = named.get(option.long) ?? ADVANCED_OPTIONS;
    option.helpGroup(heading);
    headings.add(heading);
  }
  // The topics in the order given, the options no topic names last.
  layoutOf(command).headings = [...Object.keys(topics), ADVANCED_OPTIONS].filter((heading) => headings.has(heading));
  return command;
}

type HelpText = string | ((context: AddHelpTextContext) => string);

/** Text only `--help-all` prints, after the help; `what` names it in the default help's pointer. */
export function addFullHelpText<C extends CommandUnknownOpts>(command: C, what: string, text: HelpText): C {
  layoutOf(command).more.push(what);
  command.addHelpText('after', (context) => {
    if (!showingAll.has(context.command)) return '';
    return typeof text === 'string' ? text : text(context);
  });
  return command;
}

/**
 * A table for the text after the help (the keys of a setting, the cases of a check): each term with
 * its description wrapped beside it, as commander lays out options, at the help's width.
 */
export function helpTable(heading: string, rows: ReadonlyArray<readonly [term: string, description: string]>) {
  return (context: AddHelpTextContext): string => {
    const help = context.command.createHelp();
    const helpWidth = context.command.configureOutput().getOutHelpWidth?.();
    help.prepareContext(helpWidth === undefined ? {} : { helpWidth });
    const width = Math.max(...rows.map(([term]) => term.length));
    return `\n${heading}\n${rows.map(([term, text]) => help.formatItem(term, width, text, help)).join('\n')}`;
  };
}

/** The "More examples:" block `--help-all` prints after the examples. */
export function moreExamples(...lines: string[]): string {
  return examples(...lines).replace('\nExamples:', 'More examples:');
}

/** Examples of the advanced options: printed by `--help-all` after the common ones. */
export function addMoreExamples<C extends CommandUnknownOpts>(command: C, ...lines: string[]): C {
  return addFullHelpText(command, 'more examples', moreExamples(...lines));
}

const isAdvanced = (option: Option) => option.helpGroupHeading !== undefined;

/** The page of the manual that documents `command` (a subcommand's is its command's). */
function pageOf(command: CommandUnknownOpts): string {
  let top = command;
  while (top.parent?.parent) top = top.parent;
  return `docs/cli/${top.name()}.md`;
}

/** The default help's last option line: what `--help-all` adds. */
function pointer(command: CommandUnknownOpts, advanced: number): Option {
  const more = layouts.get(command)?.more ?? [];
  const adds = [...(advanced > 0 ? [`the ${advanced} advanced options`] : []), ...more];
  const list = adds.length > 1 ? `${adds.slice(0, -1).join(', ')} and ${adds.at(-1)}` : adds[0];
  return new Option(HELP_ALL, `show ${list} too (every flag is also in ${pageOf(command)})`).helpGroup(
    advanced > 0 ? ADVANCED_OPTIONS : 'More:',
  );
}

/**
 * The help's option list: the common options and the pointer to `--help-all`; with `--help-all`,
 * every option, the common ones first and then each topic in its order.
 */
function visibleOptions(this: Help, command: CommandUnknownOpts): Option[] {
  const options = Help.prototype.visibleOptions.call(this, command);
  const common = options.filter((option) => !isAdvanced(option));
  const advanced = options.filter(isAdvanced);
  const layout = layouts.get(command);
  if (showingAll.has(command)) {
    const rank = (option: Option) => layout?.headings.indexOf(option.helpGroupHeading ?? '') ?? 0;
    return [...common, ...advanced.sort((a, b) => rank(a) - rank(b))];
  }
  if (advanced.length === 0 && (layout?.more.length ?? 0) === 0) return options;
  return [...common, pointer(command, advanced.length)];
}

/**
 * Groups in the order their first item is shown (commander's own order is that of the definitions,
 * so an advanced option defined first would put its group above the common ones).
 */
function groupItems<T extends Command | Option>(
  this: Help,
  _unsorted: T[],
  visible: T[],
  getGroup: (item: T) => string,
): Map<string, T[]> {
  const byFirstShown: (this: Help, unsorted: T[], visible: T[], getGroup: (item: T) => string) => Map<string, T[]> =
    Help.prototype.groupItems;
  return byFirstShown.call(this, visible, visible, getGroup);
}

function commandsOf(command: CommandUnknownOpts): CommandUnknownOpts[] {
  return command.commands.flatMap((sub) => [sub, ...commandsOf(sub)]);
}

/**
 * Sets the program's help up: `configure` before the commands are defined (they inherit it), then
 * `finish` after. `--help-all` is an option of each command that runs (a command with subcommands
 * would take it from them: commander reads a parent's options anywhere on the line).
 */
export const programHelp = {
  configure(program: CommandUnknownOpts): void {
    program.configureHelp({ visibleOptions, groupItems });
  },
  finish(program: CommandUnknownOpts): void {
    for (const command of commandsOf(program)) {
      if (command.commands.length > 0) continue;
      command.addOption(new Option(HELP_ALL, 'display help with every option').hideHelp());
      command.on(`option:${HELP_ALL.slice(2)}`, () => {
        showingAll.add(command);
        try {
          command.help();
        } finally {
          showingAll.delete(command);
        }
      });
    }
    // `help` itself is listed with the set-up commands.
    program.commandsGroup(COMMAND_GROUPS.setup).helpCommand(true);
  },
};
