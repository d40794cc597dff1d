import { choiceOption, integerOption, optionalString } from '../arguments';
import { exitCodes } from '../exit-codes';
import { renderRecord, type TableColumn } from '../output';
import { collect, listLimitHelp, listLimitOption, pageSizeFor, type CliCommand } from './command';
import { listLimit, printDryRun, printList } from './lists';

const machineColumns: TableColumn[] = [
  { heading: 'MACHINE_ID', cell: (row) => row['machine_id'] },
  { heading: 'LICENSE_ID', cell: (row) => row['license_id'] },
  { heading: 'STATUS', cell: (row) => row['status'] },
  { heading: 'NAME', cell: (row) => row['name'] },
  { heading: 'PLATFORM', cell: (row) => row['platform'] },
  { heading: 'LAST_SEEN_AT', cell: (row) => row['last_seen_at'] },
];

const machineStatuses = ['active', 'deactivated', 'revoked'] as const;

const list: CliCommand<{ licenseId?: string; status?: (typeof machineStatuses)[number]; limit: number }> = {
  group: 'machines',
  action: 'list',
  synopsis: '[--license <id>] [--status active|deactivated|revoked] [--limit <n>]',
  summary: "list the vendor's machines, newest first",
  details: `  --license <id>  only this license's machines\n${listLimitHelp}`,
  options: { license: { type: 'string' }, status: { type: 'string' }, ...listLimitOption },
  positionals: [],
  parse: (values) => {
    const licenseId = optionalString(values, 'license');
    const status = choiceOption(values, 'status', machineStatuses);
    return { limit: listLimit(values), ...(licenseId === undefined ? {} : { licenseId }), ...(status === undefined ? {} : { status }) };
  },
  run: async (context, input) => {
    const { limit, ...filters } = input;
    const page = await collect(context.client.machines.list({ ...filters, limit: pageSizeFor(limit) }), limit);
    return printList(context, 'machines', page, machineColumns);
  },
};

const revoke: CliCommand<{ machineId: string; confirm: boolean; reason?: number }> = {
  group: 'machines',
  action: 'revoke',
  synopsis: '<machine-id> [--reason <0-255>] [--confirm]',
  summary: 'revoke one machine (dry run unless --confirm)',
  details: '  --confirm        execute; without it the command only shows what would happen (exit status 4)\n  --reason <code>  a reason code 0 to 255, recorded with the revocation\n',
  options: { confirm: { type: 'boolean' }, reason: { type: 'string' } },
  positionals: ['machine-id'],
  parse: (values, [machineId]) => ({
    machineId: machineId as string,
    confirm: values['confirm'] === true,
    ...(values['reason'] === undefined ? {} : { reason: integerOption(values, 'reason', { min: 0, max: 255, fallback: 0 }) }),
  }),
  run: async (context, input) => {
    const result = await context.client.machines.revoke(input.machineId, input.reason === undefined ? {} : { reason: input.reason }, { dryRun: !input.confirm });
    if (result.dry_run) return printDryRun(context, result, () => renderRecord(result), `tollgate-admin machines revoke ${input.machineId} --confirm`);
    await context.output.result(result, () => `revoked machine ${result.machine.machine_id} (revocation seq ${result.revocation.seq})\n`);
    return exitCodes.ok;
  },
};

/** The `machines` commands. */
export const machineCommands: readonly CliCommand[] = [list, revoke];
