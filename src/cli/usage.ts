/**
 * Usage errors of `ironic-render` and `ironic-render migrate`: the problem in one line and where the options
 * are, not the whole help. Under `npm run render`, options written before `--` are npm's (`-f` is its
 * `--force`): npm keeps them, sets `npm_config_<name>`, and passes only their values on; the message says so.
 */

import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/** A mistake in the command line: printed with usageErrorText, exit 2. */
export class UsageError extends Error {}

/** The first line of a parse error of node:util's parseArgs (its second suggests a workaround of its own). */
export const firstLine = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
};

/** Options of the command that npm keeps when they come before `--`, by the npm setting it makes of them. */
const KEPT_BY_NPM: readonly { readonly setting: string; readonly option: string }[] = [
  { setting: 'force', option: '-f (npm reads it as its own --force)' },
  { setting: 'filename', option: '--filename' },
  { setting: 'namespace', option: '--namespace' },
  { setting: 'rounds', option: '--rounds' },
  { setting: 'advance', option: '--advance' },
];

/** The options npm kept for itself (as settings of its own). */
const keptByNpm = (env: NodeJS.ProcessEnv): string[] => KEPT_BY_NPM.filter((k) => env[`npm_config_${k.setting}`] !== undefined).map((k) => k.option);

/**
 * What a usage error prints: `<command>: <message>` (or, when npm kept options for itself, that), then the
 * command that prints the help: `ironic-render --help`, or `npm run render -- --help` under npm (which sets
 * npm_lifecycle_event to the script's name).
 */
export const usageErrorText = (params: { readonly subcommand?: string; readonly message: string; readonly env: NodeJS.ProcessEnv }): string => {
  const { subcommand, message, env } = params;
  const args = subcommand === undefined ? [] : [subcommand];
  const command = ['ironic-render', ...args].join(' ');
  const script = env['npm_lifecycle_event'];
  if (script === undefined) return `${command}: ${message}\nRun ${command} --help for the options.\n`;
  const kept = keptByNpm(env);
  const problem =
    kept.length === 0
      ? message
      : `npm kept ${kept.join(', ')} for itself and passed on only the values (the options before -- are npm's): ` +
        `write them after --, as in npm run ${script} -- ${[...args, '-f FILE'].join(' ')}`;
  return `${command}: ${problem}\nRun npm run ${script} -- ${[...args, '--help'].join(' ')} for the options.\n`;
};

/** The options of a command line (no positional argument, no unknown option), or a UsageError with parseArgs's first line. */
type CommandLine<T extends ParseArgsOptionsConfig> = { args: string[]; options: T; strict: true; allowPositionals: false };

export const commandOptions = <T extends ParseArgsOptionsConfig>(
  argv: readonly string[],
  options: T,
): ReturnType<typeof parseArgs<CommandLine<T>>>['values'] => {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(firstLine(error));
  }
};
