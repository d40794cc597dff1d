import type { AnalyticsExportQuery } from '../../resources/analytics';
import { choiceOption, integerOption, optionalString, requiredString, UsageError } from '../arguments';
import { exitCodes } from '../exit-codes';
import { createProgress } from '../progress';
import type { CliCommand } from './command';

const day = (text: string, name: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) throw new UsageError(`--${name} must be a day as YYYY-MM-DD.`);
  return text;
};

/**
 * `analytics export`: the detail events streamed to stdout as they arrive (never buffered: an export may
 * hold 100,000 rows), with a row count on stderr. A broken stream says which `--cursor` resumes it.
 */
const exportCommand: CliCommand<AnalyticsExportQuery> = {
  group: 'analytics',
  action: 'export',
  synopsis: '--from <YYYY-MM-DD> --to <YYYY-MM-DD> [--format ndjson|csv] [--kind activation|check_in] [--product <id>] [--limit <n>] [--cursor <event-id>]',
  summary: 'stream raw analytics events to stdout (NDJSON or CSV), progress on stderr',
  details:
    '  --from, --to   days, inclusive (the server caps the range)\n' +
    '  --format       ndjson (default: one JSON object a line) or csv; --json changes nothing here\n' +
    '  --limit <n>    rows at most (the server caps it too)\n' +
    '  --cursor <id>  resume after this event id (printed on stderr when a stream breaks)\n',
  options: { from: { type: 'string' }, to: { type: 'string' }, format: { type: 'string' }, kind: { type: 'string' }, product: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } },
  positionals: [],
  parse: (values) => {
    const format = choiceOption(values, 'format', ['ndjson', 'csv'] as const);
    const kind = choiceOption(values, 'kind', ['activation', 'check_in'] as const);
    const productId = optionalString(values, 'product');
    const cursor = optionalString(values, 'cursor');
    return {
      from: day(requiredString(values, 'from'), 'from'),
      to: day(requiredString(values, 'to'), 'to'),
      ...(format === undefined ? {} : { format }),
      ...(kind === undefined ? {} : { kind }),
      ...(productId === undefined ? {} : { productId }),
      ...(cursor === undefined ? {} : { cursor }),
      ...(values['limit'] === undefined ? {} : { limit: integerOption(values, 'limit', { min: 1, max: 100_000_000, fallback: 1 }) }),
    };
  },
  run: async (context, query) => {
    const progress = createProgress(context.streams, 'rows exported');
    const rows = context.client.analytics.export(query);
    let count = 0;
    try {
      for await (const row of rows) {
        await context.streams.stdout(typeof row === 'string' ? `${row}\n` : `${JSON.stringify(row)}\n`);
        count += 1;
        progress.update(count);
      }
    } catch (error) {
      progress.finish(count);
      if (rows.lastEventId !== undefined) context.output.note(`tollgate-admin: the export broke after event ${rows.lastEventId}; resume with --cursor ${rows.lastEventId}`);
      throw error;
    }
    progress.finish(count);
    return exitCodes.ok;
  },
};

/** The `analytics` commands. */
export const analyticsCommands: readonly CliCommand[] = [exportCommand];
