import { parseArgs } from 'node:util';

/** A wrong command line: printed with a hint to `--help`, exit status 2, nothing sent. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The option spec of `node:util` `parseArgs`. */
export type OptionSpec = Record<string, { readonly type: 'string' | 'boolean' }>;

/** Parsed option values: strings for string options, `true` for flags given. */
export type OptionValues = Readonly<Record<string, string | boolean | undefined>>;

/** Options every command takes, wherever they stand on the line. */
export const globalOptions = {
  url: { type: 'string' },
  'token-file': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean' },
} as const satisfies OptionSpec;

/** The command words and the rest of the line, with global options left in place for the command's parse. */
export interface SplitCommandLine {
  readonly group: string | undefined;
  readonly action: string | undefined;
  /** Every argument except the two command words. */
  readonly rest: readonly string[];
}

/**
 * Finds the command words (`licenses list`) among the arguments, so global options may come before them
 * (`tollgate-admin --json licenses list`). Values of global string options are skipped, never taken as
 * command words.
 *
 * @param args - The arguments after the program name.
 * @returns The group, the action and the remaining arguments.
 * @example
 * ```ts
 * splitCommandLine(['--url', 'http://x', 'licenses', 'get', 'abc']); // { group: 'licenses', action: 'get', rest: ['--url', 'http://x', 'abc'] }
 * ```
 */
export function splitCommandLine(args: readonly string[]): SplitCommandLine {
  const words: number[] = [];
  for (let index = 0; index < args.length && words.length < 2; index += 1) {
    const arg = args[index] as string;
    if (arg === '--') break;
    if (arg === '--url' || arg === '--token-file') index += 1;
    else if (!arg.startsWith('-')) words.push(index);
  }
  return {
    group: words[0] === undefined ? undefined : args[words[0]],
    action: words[1] === undefined ? undefined : args[words[1]],
    rest: args.filter((_, index) => !words.includes(index)),
  };
}

/**
 * Refuses a token given on the command line: it would land in shell history and in `ps` output, where
 * anyone on the machine can read it.
 *
 * @param args - The arguments after the program name.
 * @throws UsageError when `--token` (or `--token=…`) is present.
 */
export function refuseTokenFlag(args: readonly string[]): void {
  const endOfOptions = args.indexOf('--');
  const options = endOfOptions === -1 ? args : args.slice(0, endOfOptions);
  if (options.some((arg) => arg === '--token' || arg.startsWith('--token='))) {
    throw new UsageError(
      '--token is not accepted: a token on the command line lands in shell history and in the process list. ' +
        'Set TOLLGATE_ADMIN_TOKEN, or pass --token-file <path> (a file readable only by you).',
    );
  }
}

/**
 * Parses a command's arguments with `node:util` `parseArgs` (strict), global options included.
 *
 * @param rest - The arguments without the command words.
 * @param options - The command's own options.
 * @param positionalNames - Names of the positional arguments the command requires, in order.
 * @returns The option values and the positionals.
 * @throws UsageError on an unknown option, a missing value, or a wrong number of positionals.
 */
export function parseCommandArguments(rest: readonly string[], options: OptionSpec, positionalNames: readonly string[]): { values: OptionValues; positionals: string[] } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...rest], options: { ...globalOptions, ...options }, strict: true, allowPositionals: true });
  } catch (error) {
    // node:util's refusals (unknown option, missing value) carry ERR_PARSE_ARGS_* codes and clear messages.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) throw new UsageError((error as Error).message);
    throw error;
  }
  const values = parsed.values as OptionValues;
  if (values['help'] === true) return { values, positionals: parsed.positionals };
  if (parsed.positionals.length < positionalNames.length) throw new UsageError(`Missing <${positionalNames[parsed.positionals.length]}>.`);
  if (parsed.positionals.length > positionalNames.length) throw new UsageError(`Unexpected argument: ${parsed.positionals[positionalNames.length]}.`);
  return { values, positionals: parsed.positionals };
}

/**
 * A string option's value, required.
 *
 * @throws UsageError when it is absent or empty.
 */
export function requiredString(values: OptionValues, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.length === 0) throw new UsageError(`--${name} is required.`);
  return value;
}

/** A string option's value, or `undefined` when absent. */
export function optionalString(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A whole-number option within bounds.
 *
 * @throws UsageError when it is not a whole number from `min` to `max`.
 */
export function integerOption(values: OptionValues, name: string, bounds: { min: number; max: number; fallback: number }): number {
  const value = values[name];
  if (value === undefined) return bounds.fallback;
  if (typeof value !== 'string' || !/^[0-9]{1,9}$/.test(value) || Number(value) < bounds.min || Number(value) > bounds.max) {
    throw new UsageError(`--${name} must be a whole number from ${bounds.min} to ${bounds.max}.`);
  }
  return Number(value);
}

/**
 * A value that must be one of a few words.
 *
 * @throws UsageError otherwise.
 */
export function choiceOption<T extends string>(values: OptionValues, name: string, choices: readonly T[]): T | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of: ${choices.join(', ')}.`);
  return value as T;
}
