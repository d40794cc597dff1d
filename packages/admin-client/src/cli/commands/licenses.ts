import type { IssuedLicense, LicenseIssueInput } from '../../resources/licenses';
import { choiceOption, integerOption, optionalString, requiredString, UsageError, type OptionValues } from '../arguments';
import { exitCodes } from '../exit-codes';
import { renderRecord, renderTable, type TableColumn } from '../output';
import { createProgress } from '../progress';
import { collect, listLimitHelp, listLimitOption, pageSizeFor, type CliCommand } from './command';
import { listLimit, printDryRun, printList } from './lists';

const licenseColumns: TableColumn[] = [
  { heading: 'LICENSE_ID', cell: (row) => row['license_id'] },
  { heading: 'STATUS', cell: (row) => row['status'] },
  { heading: 'KEY_HINT', cell: (row) => row['key_hint'] },
  { heading: 'SEATS', cell: (row) => row['seats'] },
  { heading: 'TIER', cell: (row) => row['tier'] },
  { heading: 'EXPIRES_AT', cell: (row) => row['expires_at'] },
  { heading: 'CREATED_AT', cell: (row) => row['created_at'] },
];

const licenseStatuses = ['active', 'suspended', 'expired', 'revoked'] as const;

const list: CliCommand<{ productId: string; status?: (typeof licenseStatuses)[number]; limit: number }> = {
  group: 'licenses',
  action: 'list',
  synopsis: '--product <id> [--status active|suspended|expired|revoked] [--limit <n>]',
  summary: "list a product's licenses, newest first",
  details: `  --product <id>  the product (required: the server lists licenses per product)\n${listLimitHelp}`,
  options: { product: { type: 'string' }, status: { type: 'string' }, ...listLimitOption },
  positionals: [],
  parse: (values) => {
    const status = choiceOption(values, 'status', licenseStatuses);
    return { productId: requiredString(values, 'product'), limit: listLimit(values), ...(status === undefined ? {} : { status }) };
  },
  run: async (context, input) => {
    const page = await collect(context.client.licenses.list({ productId: input.productId, limit: pageSizeFor(input.limit), ...(input.status === undefined ? {} : { status: input.status }) }), input.limit);
    return printList(context, 'licenses', page, licenseColumns);
  },
};

const get: CliCommand<{ licenseId: string }> = {
  group: 'licenses',
  action: 'get',
  synopsis: '<license-id>',
  summary: 'show one license',
  options: {},
  positionals: ['license-id'],
  parse: (_values, [licenseId]) => ({ licenseId: licenseId as string }),
  run: async (context, input) => {
    const license = await context.client.licenses.get(input.licenseId);
    await context.output.result({ license }, () => renderRecord(license));
    return exitCodes.ok;
  },
};

/** The error that stopped an issuance, for the one JSON document that also holds the keys already issued. */
function errorField(error: unknown): { error?: { code: string; message: string } } {
  if (error === undefined) return {};
  const code = (error as { code?: unknown }).code;
  return { error: { code: typeof code === 'string' ? code : 'unexpected_error', message: error instanceof Error ? error.message : String(error) } };
}

/** The server issues at most this many licenses per request, all or none. */
const issueBatch = 100;

function expiresAtOption(values: OptionValues): { expiresAt?: string | null } {
  const text = optionalString(values, 'expires-at');
  if (text === undefined) return {};
  if (text === 'never') return { expiresAt: null };
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) throw new UsageError('--expires-at must be an ISO 8601 date-time with a zone (2027-01-01T00:00:00Z), or never.');
  return { expiresAt: text };
}

const issue: CliCommand<{ count: number; body: Omit<LicenseIssueInput, 'count'> }> = {
  group: 'licenses',
  action: 'issue',
  synopsis: '--policy <id> [--count <n>] [--account <id>] [--seats <n>] [--expires-at <iso>|never]',
  summary: 'issue licenses of a policy and print their keys (shown this once only)',
  details:
    '  --count <n>       how many (1 to 10000, default 1); sent in requests of up to 100, each all-or-none\n' +
    '                    with its own idempotency key; progress on stderr\n' +
    "  --account <id>    an active account of the policy's product\n" +
    '  --seats <n>       seats override (1 to 10000)\n' +
    "  --expires-at ...  an ISO 8601 date-time with a zone, or never (default: the policy's duration)\n",
  options: { policy: { type: 'string' }, count: { type: 'string' }, account: { type: 'string' }, seats: { type: 'string' }, 'expires-at': { type: 'string' } },
  positionals: [],
  parse: (values) => {
    const account = optionalString(values, 'account');
    const seats = values['seats'] === undefined ? undefined : integerOption(values, 'seats', { min: 1, max: 10_000, fallback: 1 });
    return {
      count: integerOption(values, 'count', { min: 1, max: 10_000, fallback: 1 }),
      body: {
        policyId: requiredString(values, 'policy'),
        ...(account === undefined ? {} : { accountId: account }),
        ...(seats === undefined ? {} : { seatsOverride: seats }),
        ...expiresAtOption(values),
      },
    };
  },
  run: async (context, input) => {
    const issued: IssuedLicense[] = [];
    const progress = createProgress(context.streams, 'licenses issued');
    const print = (error?: unknown) =>
      context.output.result({ licenses: issued, requested: input.count, complete: issued.length === input.count, ...errorField(error) }, () =>
        issued.length === 0 ? '' : renderTable(issued, [licenseColumns[0] as TableColumn, { heading: 'KEY', cell: (row) => row['key'] }, { heading: 'EXPIRES_AT', cell: (row) => row['expires_at'] }]),
      );
    try {
      while (issued.length < input.count) {
        // A new idempotency key per request (the client generates it and reuses it across its own retries).
        issued.push(...(await context.client.licenses.issue({ ...input.body, count: Math.min(issueBatch, input.count - issued.length) })));
        if (input.count > 1) progress.update(issued.length, input.count);
      }
    } catch (error) {
      // Keys are shown once: never lose those already issued because a later request failed.
      if (issued.length > 0) {
        await print(error);
        context.output.note(`tollgate-admin: issued ${issued.length} of ${input.count} licenses before the error below; those keys are printed above.`);
      }
      throw error;
    }
    if (input.count > 1) progress.finish(issued.length, input.count);
    await print();
    if (!context.output.json) context.output.note('tollgate-admin: license keys are shown only this once; store them now.');
    return exitCodes.ok;
  },
};

const revoke: CliCommand<{ licenseId: string; confirm: boolean; reason?: number }> = {
  group: 'licenses',
  action: 'revoke',
  synopsis: '<license-id> [--reason <0-255>] [--confirm]',
  summary: 'revoke a license and its machines (dry run unless --confirm)',
  details: '  --confirm        execute; without it the command only shows what would happen (exit status 4)\n  --reason <code>  a reason code 0 to 255, recorded with the revocation\n',
  options: { confirm: { type: 'boolean' }, reason: { type: 'string' } },
  positionals: ['license-id'],
  parse: (values, [licenseId]) => ({
    licenseId: licenseId as string,
    confirm: values['confirm'] === true,
    ...(values['reason'] === undefined ? {} : { reason: integerOption(values, 'reason', { min: 0, max: 255, fallback: 0 }) }),
  }),
  run: async (context, input) => {
    const result = await context.client.licenses.revoke(input.licenseId, input.reason === undefined ? {} : { reason: input.reason }, { dryRun: !input.confirm });
    if (result.dry_run) {
      return printDryRun(context, result, () => renderRecord(result), `tollgate-admin licenses revoke ${input.licenseId} --confirm`);
    }
    await context.output.result(result, () => `revoked license ${result.license.license_id} (revocation seq ${result.revocation.seq}, ${result.revocation.machines_revoked} machines revoked)\n`);
    return exitCodes.ok;
  },
};

/** The `licenses` commands. */
export const licenseCommands: readonly CliCommand[] = [list, get, issue, revoke];
