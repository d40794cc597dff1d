import type { AdminClient } from '../../client';
import type { AdminList } from '../../transport-types';
import type { OptionSpec, OptionValues } from '../arguments';
import type { ExitCode } from '../exit-codes';
import type { CliStreams, CommandOutput } from '../output';

/** What a command runs with: the client, its output, and the raw streams for streaming and progress. */
export interface CommandContext {
  readonly client: AdminClient;
  readonly output: CommandOutput;
  readonly streams: CliStreams;
}

/**
 * One typed command (`licenses list`). `parse` validates the command line before anything is sent (a
 * wrong line is a usage error even without a token); `run` calls the client and prints the result.
 */
export interface CliCommand<Input = unknown> {
  readonly group: string;
  readonly action: string;
  /** Arguments after the command words, e.g. `--product <id> [--status <status>]`. */
  readonly synopsis: string;
  /** One line for the command list. */
  readonly summary: string;
  /** More lines for `--help`: what each option means, what is printed. */
  readonly details?: string;
  readonly options: OptionSpec;
  /** Names of the required positional arguments, in order. */
  readonly positionals: readonly string[];
  parse(values: OptionValues, positionals: readonly string[]): Input;
  run(context: CommandContext, input: Input): Promise<ExitCode>;
}

/** The `--limit` option every list takes: how many items to print at most. */
export const listLimitOption = { limit: { type: 'string' } } as const satisfies OptionSpec;

/** The help line of {@link listLimitOption}. */
export const listLimitHelp = '  --limit <n>   print at most n items (1 to 10000, default 100); says so on stderr when there are more\n';

/**
 * Reads up to `limit` items of a paginated list, one more to learn whether there are more.
 *
 * @param list - The client's lazy list.
 * @param limit - Most items to return.
 * @returns The items and whether the list goes on.
 */
export async function collect<T>(list: AdminList<T>, limit: number): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  for await (const item of list) {
    if (items.length === limit) return { items, more: true };
    items.push(item);
  }
  return { items, more: false };
}

/** The server's page size for reading `limit` items plus the one that tells whether there are more (server maximum 200). */
export const pageSizeFor = (limit: number): number => Math.min(limit + 1, 200);
