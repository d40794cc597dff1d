import { optionalString } from '../arguments';
import { exitCodes } from '../exit-codes';
import { createProgress } from '../progress';
import { collect, listLimitHelp, listLimitOption, pageSizeFor, type CliCommand } from './command';
import { listLimit, printList } from './lists';

const list: CliCommand<{ targetType?: string; targetId?: string; limit: number }> = {
  group: 'audit',
  action: 'list',
  synopsis: '[--target-type <type>] [--target-id <id>] [--limit <n>]',
  summary: 'list audit events, newest first',
  details: `  --target-type <type>  e.g. license, machine, epoch\n  --target-id <id>      events about this target only\n${listLimitHelp}`,
  options: { 'target-type': { type: 'string' }, 'target-id': { type: 'string' }, ...listLimitOption },
  positionals: [],
  parse: (values) => {
    const targetType = optionalString(values, 'target-type');
    const targetId = optionalString(values, 'target-id');
    return { limit: listLimit(values), ...(targetType === undefined ? {} : { targetType }), ...(targetId === undefined ? {} : { targetId }) };
  },
  run: async (context, input) => {
    const { limit, ...filters } = input;
    const page = await collect(context.client.audit.list({ ...filters, limit: pageSizeFor(limit) }), limit);
    return printList(context, 'events', page, [
      { heading: 'SEQ', cell: (row) => row['seq'] },
      { heading: 'AT', cell: (row) => row['at'] },
      { heading: 'ACTOR', cell: (row) => row['actor'] },
      { heading: 'ACTION', cell: (row) => row['action'] },
      { heading: 'TARGET', cell: (row) => { const target = row['target'] as { type?: string; id?: string } | undefined; return target === undefined ? undefined : `${target.type}:${target.id}`; } },
    ]);
  },
};

/**
 * `audit verify`: the server checks at most 10,000 events per call, so the command walks the whole chain
 * window by window (`next_from_seq`) and reports progress, stopping at the first broken window.
 */
const verify: CliCommand<Record<string, never>> = {
  group: 'audit',
  action: 'verify',
  synopsis: '',
  summary: "verify the vendor's whole audit hash chain (exit status 5 when broken)",
  details: '  Checks the chain window by window (10,000 events per request), progress on stderr.\n',
  options: {},
  positionals: [],
  parse: () => ({}),
  run: async (context) => {
    const progress = createProgress(context.streams, 'audit events verified');
    let checked = 0;
    let fromSeq = 1;
    for (;;) {
      const window = await context.client.audit.verify({ fromSeq });
      checked += window.event_count;
      if (!window.verified || window.complete || window.next_from_seq === null) {
        progress.finish(checked);
        const result = { verified: window.verified, event_count: checked, head: window.head, first_broken: window.first_broken };
        await context.output.result(result, () =>
          window.verified ? `audit chain intact: ${checked} events, head ${window.head ?? '-'}\n` : `AUDIT CHAIN BROKEN at seq ${window.first_broken} (${checked} events checked)\n`,
        );
        return window.verified ? exitCodes.ok : exitCodes.checkFailed;
      }
      progress.update(checked);
      fromSeq = window.next_from_seq;
    }
  },
};

/** The `audit` commands. */
export const auditCommands: readonly CliCommand[] = [list, verify];
