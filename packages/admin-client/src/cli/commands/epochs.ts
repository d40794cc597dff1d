import { requiredString, UsageError } from '../arguments';
import { exitCodes } from '../exit-codes';
import { renderRecord, renderTable } from '../output';
import { printDryRun } from './lists';
import type { CliCommand } from './command';

const unixTime = (seconds: unknown) => (typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : seconds);

const list: CliCommand<Record<string, never>> = {
  group: 'epochs',
  action: 'list',
  synopsis: '',
  summary: 'list the signing epochs the token administers',
  options: {},
  positionals: [],
  parse: () => ({}),
  run: async (context) => {
    const answer = await context.client.epochs.list();
    await context.output.result(answer, () =>
      answer.epochs.length === 0
        ? '(no epochs)\n'
        : renderTable(answer.epochs, [
            { heading: 'EPOCH_ID', cell: (row) => row['epoch_id'] },
            { heading: 'STATUS', cell: (row) => row['status'] },
            { heading: 'PRODUCT', cell: (row) => row['product_scope'] ?? 'all' },
            { heading: 'IN_KEYSET', cell: (row) => row['listed_in_keyset'] },
            { heading: 'NOT_BEFORE', cell: (row) => unixTime(row['not_before']) },
            { heading: 'NOT_AFTER', cell: (row) => unixTime(row['not_after']) },
          ]),
    );
    return exitCodes.ok;
  },
};

const revoke: CliCommand<{ epochId: string; confirmEpochId: string; confirm: boolean }> = {
  group: 'epochs',
  action: 'revoke',
  synopsis: '<epoch-id> --confirm-epoch-id <epoch-id> [--confirm]',
  summary: 'revoke a signing epoch: dry run unless --confirm; two distinct tokens must confirm',
  details:
    '  --confirm-epoch-id <id>  the epoch id typed again (required): guards against revoking the wrong epoch\n' +
    '  --confirm                execute. The first token to confirm opens an approval; a second Admin token\n' +
    '                           of the same vendor runs the same command within the window to revoke.\n',
  options: { 'confirm-epoch-id': { type: 'string' }, confirm: { type: 'boolean' } },
  positionals: ['epoch-id'],
  parse: (values, [epochId]) => {
    const confirmEpochId = requiredString(values, 'confirm-epoch-id');
    // Checked here too so a typo never reaches the server as a half-confirmed revocation.
    if (confirmEpochId !== epochId) throw new UsageError('--confirm-epoch-id must repeat the epoch id exactly.');
    return { epochId: epochId as string, confirmEpochId, confirm: values['confirm'] === true };
  },
  run: async (context, input) => {
    const result = await context.client.epochs.revoke(input.epochId, { confirmEpochId: input.confirmEpochId, dryRun: !input.confirm });
    if (result.dry_run) {
      return printDryRun(context, result, () => renderRecord(result), `tollgate-admin epochs revoke ${input.epochId} --confirm-epoch-id ${input.epochId} --confirm`);
    }
    if (result.approval_pending) {
      await context.output.result(result, () => `approval opened for revoking epoch ${result.epoch_id}; a second Admin token must confirm before ${result.approval.expires_at}\n`);
      return exitCodes.ok;
    }
    await context.output.result(result, () => `revoked epoch ${result.epoch_id} (revocation seq ${result.revocation.seq})\n`);
    return exitCodes.ok;
  },
};

/** The `epochs` commands. */
export const epochCommands: readonly CliCommand[] = [list, revoke];
