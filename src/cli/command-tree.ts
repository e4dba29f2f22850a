import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { ENTITIES } from '@ledgerhook/webhooks';
import { EVENTS, WEBHOOK_TYPES } from '@ledgerhook/webhooks';
import { ENVIRONMENTS, PATH_SETTING_PREFIX, SETTING_KEYS } from '../settings/environments.js';

/** What a shell needs to complete one command: generated from the commander definitions. */
export interface CompletionNode {
  /** Words from the program: [] for the program, ['state', 'show'] for a subcommand. */
  path: string[];
  description: string;
  subcommands: CompletionNode[];
  options: CompletionOption[];
  /** Values for the positional argument, from the catalogue ([] when it is a free value or a file). */
  argumentValues: string[];
  /** The positional argument is a file. */
  argumentIsFile: boolean;
}

export interface CompletionOption {
  flags: string[];
  description: string;
  /** undefined: a switch; []: a free value; 'file': a path; otherwise these values. */
  values: undefined | 'file' | string[];
}

/** The list filters the spec shows (`?type=PENDING`, spec 4.1's sample request). */
const DATASET_TYPES = ['PENDING'] as const;
const entityNames = () => ENTITIES.map((entity) => entity.name);
const eventNames = () => EVENTS.map((event) => event.name);

/** Positional arguments whose values come from the catalogue, by command path. */
function catalogueArgument(path: string): string[] {
  if (path === 'sync' || path === 'state show' || path === 'state reset') return entityNames();
  if (path === 'send-sample') return [...WEBHOOK_TYPES, ...eventNames()];
  if (path === 'config get' || path === 'config set' || path === 'config unset')
    return [...Object.keys(SETTING_KEYS), ...entityNames().map((name) => `${PATH_SETTING_PREFIX}${name}`)];
  return [];
}

function optionValues(
  path: string,
  long: string,
  choices: readonly string[] | undefined,
  takesValue: boolean,
  name: string,
) {
  if (!takesValue) return undefined;
  if (choices) return [...choices];
  if (long === '--event') return eventNames();
  if (long === '--type') return path === 'sync' || path.startsWith('state') ? [...DATASET_TYPES] : [...WEBHOOK_TYPES];
  if (long === '--env') return [...ENVIRONMENTS];
  // A store is a URL: the scheme is what there is to complete.
  if (long === '--store') return ['postgres://'];
  if (long === '--queue') return ['redis://'];
  if (/file|dir|out|capture/i.test(name) || /file/.test(long)) return 'file' as const;
  return [];
}

export function completionTree(command: CommandUnknownOpts, path: string[] = []): CompletionNode {
  const key = path.join(' ');
  const argument = command.registeredArguments[0];
  return {
    path,
    description: command.summary() || command.description(),
    subcommands: command.commands
      .filter((sub) => sub.name() !== 'help')
      .map((sub) => completionTree(sub, [...path, sub.name()])),
    options: command.options
      .filter((option) => !option.hidden)
      .map((option) => ({
        flags: [option.short, option.long].filter((flag): flag is string => flag !== undefined),
        description: option.description,
        values: optionValues(
          key,
          option.long ?? '',
          option.argChoices,
          option.required || option.optional,
          option.flags,
        ),
      })),
    argumentValues: catalogueArgument(key),
    argumentIsFile: argument !== undefined && /file/.test(argument.name()),
  };
}

export function flatten(node: CompletionNode): CompletionNode[] {
  return [node, ...node.subcommands.flatMap(flatten)];
}
