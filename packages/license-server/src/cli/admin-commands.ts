import { parseArgs } from 'node:util';
import { bootstrapVendor, systemClock } from '@tollgate/core';
import { isHexId } from '@tollgate/core/crypto';
import {
  adminScopes,
  createAdminToken,
  createProduct,
  createSqlAuditLog,
  isAdminScope,
  listAdminTokens,
  revokeAdminToken,
  scopeSatisfied,
  type AdminProvisioningContext,
  type AdminScope,
  type AdminTokenRecord,
} from '@tollgate/core/license';
import { openLicenseDatabase, resolveMasterKey } from '../ceremony/ceremony';
import { CeremonyError } from '../ceremony/ceremony-error';
import { loadLicenseConfig, type LicenseConfig } from '../config';
import type { CliIo } from './cli-io';

/** The operator commands' lines of the `tollgate-license` usage text. */
export const adminCommandsUsage = `  bootstrap --vendor <name> --product <name> [--json]
                                          create a vendor, its first product and an all-scopes Admin token (shown once)
  tokens create --vendor <id> --scopes <scope,...> [--expires-in <N>d|<N>h|<N>m] [--label <text>] [--json]
                                          mint an Admin token (shown once; no expiry unless --expires-in)
  tokens list [--vendor <id>] [--json]    list Admin tokens: ids, scopes, dates; never a token or its hash
  tokens revoke <token-id> [--json]       revoke an Admin token: it is refused from its next request on
  products create --vendor <id> --name <name> [--json]
                                          add a product to a vendor
`;

const commandGroups = new Set(['bootstrap', 'tokens', 'products']);

/**
 * Whether `group` names one of the operator commands handled by {@link runAdminCommand}.
 *
 * @param group - The first command-line argument.
 * @returns True for `bootstrap`, `tokens` and `products`.
 * @example
 * ```ts
 * isAdminCommand('tokens'); // true
 * ```
 */
export function isAdminCommand(group: string | undefined): boolean {
  return group !== undefined && commandGroups.has(group);
}

const usageError = (message: string) => new CeremonyError('invalid_argument', message);
const maxExpiryMinutes = 3650 * 24 * 60;
const unitMinutes = { m: 1, h: 60, d: 24 * 60 } as const;

function vendorIdArgument(value: string | undefined): string {
  if (value === undefined) throw usageError('--vendor is required.');
  if (!isHexId(value, 16)) throw usageError('--vendor must be a vendor id: 32 lowercase hex digits, as printed by bootstrap.');
  return value;
}

function nameArgument(value: string | undefined, flag: string): string {
  if (value === undefined) throw usageError(`--${flag} is required.`);
  if (value.trim().length === 0 || value.length > 200) throw usageError(`--${flag} must be 1 to 200 characters.`);
  return value;
}

function scopesArgument(value: string | undefined): AdminScope[] {
  if (value === undefined) throw usageError('--scopes is required (comma-separated).');
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !isAdminScope(name));
  if (unknown.length > 0 || names.length === 0) {
    throw usageError(`Unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => JSON.stringify(name)).join(', ')}. Valid scopes: ${adminScopes.join(', ')}.`);
  }
  return adminScopes.filter((scope) => names.includes(scope));
}

/** `90d`, `12h`, `30m` → minutes (1 minute to 3650 days). */
function expiresInArgument(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^([1-9][0-9]{0,6})([dhm])$/.exec(value);
  const minutes = match === null ? Number.NaN : Number(match[1]) * unitMinutes[match[2] as keyof typeof unitMinutes];
  if (!(minutes <= maxExpiryMinutes)) throw usageError('--expires-in is a whole number of days, hours or minutes, like 90d, 12h or 30m, at most 3650d.');
  return minutes;
}

/** The routes a hint may name, best first: those without ids, then the rest with placeholders. */
const hintRoutes: ReadonlyArray<readonly [AdminScope, 'GET' | 'POST', string]> = [
  ['audit:r', 'GET', '/audit'],
  ['accounts:rw', 'GET', '/accounts'],
  ['policies:rw', 'GET', '/policies'],
  ['machines:r', 'GET', '/machines'],
  ['epochs:rw', 'GET', '/epochs'],
  ['releases:rw', 'GET', '/releases'],
  ['catalog:rw', 'GET', '/catalog/features'],
  ['sign:manifest', 'GET', '/integrity/keys'],
  ['analytics:r', 'GET', '/analytics/definitions'],
  ['products:rw', 'GET', '/products/{product}/alert-webhook'],
  ['licenses:rw', 'GET', '/licenses?product_id={product}'],
  ['dsr:rw', 'POST', '/telemetry/purge'],
  ['revoke', 'POST', '/licenses/<license-id>/revoke'],
];

/** Where the operator reaches the server from this machine, by the server's own settings. */
function baseUrl(config: LicenseConfig): string {
  const host = config.host === '0.0.0.0' || config.host === '::' || config.host === '' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port === 0 ? 4030 : config.port}`;
}

/** A curl line for a route the token may call (POST routes named here are dry runs by default). */
function tryItHint(config: LicenseConfig, scopes: readonly AdminScope[], productId: string | undefined): string {
  const [, method, path] = hintRoutes.find(([scope]) => scopeSatisfied(scopes, scope)) as (typeof hintRoutes)[number];
  const url = `${baseUrl(config)}/v1/admin${path.replace('{product}', productId ?? '<product-id>')}`;
  return [
    'Try it with the server running (tollgate-license serve):',
    `  export TOLLGATE_ADMIN_TOKEN='<the token above>'`,
    `  curl -sS${method === 'POST' ? ' -X POST' : ''} -H "Authorization: Bearer $TOLLGATE_ADMIN_TOKEN" '${url}'`,
    ...(config.databaseUrl ? [] : ['The embedded database admits one process: stop the server before the next tollgate-license command.']),
    '',
  ].join('\n');
}

const time = (date: Date | null) => (date === null ? '-' : date.toISOString().replace(/\.\d{3}Z$/, 'Z'));
// Labels are operator text: keep terminal control sequences out of the table.
const printable = (text: string) => text.replace(/[\p{Cc}\p{Cf}]/gu, '?');
const scopeList = (scopes: readonly AdminScope[]) => (adminScopes.every((scope) => scopes.includes(scope)) ? 'all' : scopes.join(','));

function tokenTable(tokens: readonly AdminTokenRecord[]): string {
  if (tokens.length === 0) return 'No Admin tokens.\n';
  const header = ['ID', 'VENDOR', 'LABEL', 'SCOPES', 'CREATED', 'EXPIRES', 'LAST USED', 'REVOKED'];
  const rows = tokens.map((token) => [token.tokenId, token.vendorId, printable(token.label) || '-', scopeList(token.scopes), time(token.createdAt), time(token.expiresAt), time(token.lastUsedAt), time(token.revokedAt)]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] as string).length)));
  return [header, ...rows].map((row) => row.map((cell, column) => cell.padEnd(widths[column] as number)).join('  ').trimEnd()).join('\n') + '\n';
}

const tokenJson = (token: AdminTokenRecord) => ({
  tokenId: token.tokenId,
  vendorId: token.vendorId,
  label: token.label,
  scopes: [...token.scopes],
  createdAt: token.createdAt.toISOString(),
  expiresAt: token.expiresAt?.toISOString() ?? null,
  lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
  revokedAt: token.revokedAt?.toISOString() ?? null,
});

async function withProvisioning<T>(io: CliIo, run: (context: AdminProvisioningContext, config: LicenseConfig) => Promise<T>): Promise<T> {
  const config = loadLicenseConfig(io.env);
  const { key: masterKey, created } = resolveMasterKey(config);
  if (created) io.stderr('Created a dev master key (LICENSE_MASTER_KEY is not set): the dev server uses the same one.\n');
  const database = await openLicenseDatabase(config);
  try {
    const context: AdminProvisioningContext = { sql: database.sql, masterKey, tokenPrefix: config.adminTokenPrefix, audit: createSqlAuditLog(database.sql), clock: io.clock ?? systemClock };
    return await run(context, config);
  } finally {
    await database.close();
  }
}

const line = (io: CliIo, value: unknown) => io.stdout(`${JSON.stringify(value)}\n`);

/**
 * Runs an operator command (`bootstrap`, `tokens create|list|revoke`, `products create`) against the
 * license database, opened as `epoch load` opens it. No HTTP route mints Admin tokens: these commands
 * are how tokens come to exist (license spec, "Authentication" 4). Tokens are printed once; `--json`
 * prints exactly one JSON line on stdout. Usage errors throw `CeremonyError('invalid_argument')`.
 *
 * @param args - The arguments, starting with the command group.
 * @param io - Environment and output streams.
 * @returns The exit status.
 * @example
 * ```ts
 * await runAdminCommand(['bootstrap', '--vendor', 'Acme', '--product', 'Acme Editor', '--json'], io);
 * ```
 */
export async function runAdminCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [group, action, ...rest] = args;
  const parse = <Options extends Record<string, { type: 'string' | 'boolean' }>>(argv: readonly string[], options: Options, positionals = 0) => {
    const parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: positionals > 0 });
    if (parsed.positionals.length > positionals) throw usageError(`Unexpected argument: ${parsed.positionals[positionals]}`);
    return parsed as { values: Partial<Record<keyof Options, string | boolean>>; positionals: string[] };
  };

  if (group === 'bootstrap') {
    const { values } = parse(args.slice(1), { vendor: { type: 'string' }, product: { type: 'string' }, json: { type: 'boolean' } });
    const names = { vendor: nameArgument(values.vendor as string | undefined, 'vendor'), product: nameArgument(values.product as string | undefined, 'product') };
    return withProvisioning(io, async (context, config) => {
      const created = await bootstrapVendor(context, names);
      if (values.json === true) {
        line(io, { vendorId: created.vendorId, productId: created.productId, tokenId: created.tokenId, token: created.token });
        return 0;
      }
      io.stdout(
        `Vendor   ${created.vendorId}  ${JSON.stringify(names.vendor)}\nProduct  ${created.productId}  ${JSON.stringify(names.product)}\n` +
          `Token    ${created.tokenId}  (all scopes, no expiry)\n\n  ${created.token}\n\n` +
          'This is the only time the token is shown: keep it in your secret store now.\n\n' +
          tryItHint(config, ['products:rw'], created.productId),
      );
      return 0;
    });
  }
  if (group === 'tokens' && action === 'create') {
    const { values } = parse(rest, { vendor: { type: 'string' }, scopes: { type: 'string' }, 'expires-in': { type: 'string' }, label: { type: 'string' }, json: { type: 'boolean' } });
    const vendorId = vendorIdArgument(values.vendor as string | undefined);
    const scopes = scopesArgument(values.scopes as string | undefined);
    const minutes = expiresInArgument(values['expires-in'] as string | undefined);
    const label = (values.label as string | undefined) ?? '';
    if (label.length > 200) throw usageError('--label must be at most 200 characters.');
    return withProvisioning(io, async (context, config) => {
      const expiresAt = minutes === undefined ? null : new Date(context.clock.now() + minutes * 60_000);
      const { record, token } = await createAdminToken(context, { vendorId, scopes, label, expiresAt });
      if (values.json === true) {
        line(io, { tokenId: record.tokenId, vendorId: record.vendorId, scopes: [...record.scopes], label: record.label, expiresAt: record.expiresAt?.toISOString() ?? null, token });
        return 0;
      }
      io.stdout(
        `Token    ${record.tokenId}  for vendor ${record.vendorId}\nScopes   ${record.scopes.join(', ')}\nLabel    ${printable(record.label) || '-'}\n` +
          `Expires  ${record.expiresAt === null ? 'never' : time(record.expiresAt)}\n\n  ${token}\n\n` +
          'This is the only time the token is shown: keep it in your secret store now.\n\n' +
          tryItHint(config, record.scopes, undefined),
      );
      return 0;
    });
  }
  if (group === 'tokens' && action === 'list') {
    const { values } = parse(rest, { vendor: { type: 'string' }, json: { type: 'boolean' } });
    const vendorId = values.vendor === undefined ? undefined : vendorIdArgument(values.vendor as string);
    return withProvisioning(io, async (context) => {
      const tokens = await listAdminTokens(context, vendorId);
      if (values.json === true) line(io, { tokens: tokens.map(tokenJson) });
      else io.stdout(tokenTable(tokens));
      return 0;
    });
  }
  if (group === 'tokens' && action === 'revoke') {
    const { values, positionals } = parse(rest, { json: { type: 'boolean' } }, 1);
    const tokenId = positionals[0];
    if (tokenId === undefined) throw usageError('tokens revoke needs the token id.');
    if (!isHexId(tokenId, 16)) throw usageError('The token id is 32 lowercase hex digits, as printed by tokens list.');
    return withProvisioning(io, async (context) => {
      const { record, alreadyRevoked } = await revokeAdminToken(context, tokenId);
      if (values.json === true) line(io, { tokenId: record.tokenId, vendorId: record.vendorId, revokedAt: record.revokedAt?.toISOString() ?? null, alreadyRevoked });
      else io.stdout(alreadyRevoked ? `Token ${record.tokenId} was already revoked at ${time(record.revokedAt)}.\n` : `Revoked token ${record.tokenId} (vendor ${record.vendorId}) at ${time(record.revokedAt)}.\n`);
      return 0;
    });
  }
  if (group === 'products' && action === 'create') {
    const { values } = parse(rest, { vendor: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } });
    const vendorId = vendorIdArgument(values.vendor as string | undefined);
    const name = nameArgument(values.name as string | undefined, 'name');
    return withProvisioning(io, async (context) => {
      const product = await createProduct(context, { vendorId, name });
      if (values.json === true) line(io, { vendorId: product.vendorId, productId: product.productId, name: product.name });
      else io.stdout(`Product  ${product.productId}  ${JSON.stringify(product.name)}  for vendor ${product.vendorId}\n`);
      return 0;
    });
  }
  throw usageError(`Unknown command: ${args.join(' ')}`);
}
