import { integerOption, type OptionValues } from '../arguments';
import { exitCodes, type ExitCode } from '../exit-codes';
import { renderTable, type TableColumn } from '../output';
import type { CommandContext } from './command';

/** `--limit`: 1 to 10,000 items, 100 by default. */
export const listLimit = (values: OptionValues): number => integerOption(values, 'limit', { min: 1, max: 10_000, fallback: 100 });

/**
 * Prints a list: `{ <key>: [...], has_more }` with `--json`, a table otherwise (and a note on stderr
 * when the list was cut at `--limit`).
 *
 * @param context - The command's context.
 * @param key - The JSON key of the items (`licenses`), also the noun of the empty-list line.
 * @param page - The items and whether there are more.
 * @param columns - The table's columns.
 * @returns Exit status 0.
 */
export async function printList(context: CommandContext, key: string, page: { items: readonly object[]; more: boolean }, columns: readonly TableColumn[]): Promise<ExitCode> {
  const rows = page.items as readonly Readonly<Record<string, unknown>>[];
  await context.output.result({ [key]: page.items, has_more: page.more }, () => (rows.length === 0 ? `(no ${key})\n` : renderTable(rows, columns)));
  if (page.more) context.output.note(`tollgate-admin: more ${key} exist than shown; raise --limit to see them.`);
  return exitCodes.ok;
}

/** Prints a destructive command's dry-run preview and says how to execute it (exit status 4). */
export async function printDryRun(context: CommandContext, preview: object, human: () => string, confirmHint: string): Promise<ExitCode> {
  await context.output.result(preview, human);
  context.output.note(`tollgate-admin: dry run, nothing was changed. To execute: ${confirmHint}`);
  return exitCodes.dryRun;
}
