import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, hexDecode, hexEncode, isTollgateError, systemClock } from '@tollgate/core';
import { isArtifactError } from '@tollgate/core/license';
import { createEpochRequest, loadEpochCertificate, openLicenseDatabase, resolveMasterKey, resolvePinnedRoots, signEpochRequestWithRootFile } from '../ceremony/ceremony';
import { CeremonyError } from '../ceremony/ceremony-error';
import { createRootKeyFile, writeOwnerOnlyFile } from '../ceremony/key-files';
import { loadLicenseConfig } from '../config';
import { runLicenseFromEnv } from '../server';
import { adminCommandsUsage, isAdminCommand, runAdminCommand } from './admin-commands';
import type { CliIo } from './cli-io';

export type { CliIo } from './cli-io';

const usage = `Usage: tollgate-license [command]

  serve                                   run the license server (the default)
  root create --out <file>                create an offline root key pair (file mode 0600) and print its public key
  epoch create [--product <id>] [--days 90] [--not-before <unix seconds>] [--out <file>]
                                          generate an epoch key (sealed under LICENSE_MASTER_KEY) and print the certificate request
  root sign --root <file> --request <file|hex> [--out <file>]
                                          sign a certificate request with the root, offline
  epoch load --certificate <file|hex>     verify a root-signed certificate against LICENSE_ROOT_PUBLIC_KEYS and activate it
${adminCommandsUsage}`;

function hexArgument(value: string | undefined, name: string): Uint8Array {
  if (value === undefined) throw new CeremonyError('invalid_argument', `--${name} is required.`);
  const text = existsSync(value) ? readFileSync(value, 'utf8').trim() : value.trim();
  if (!/^(?:[0-9a-f]{2})+$/.test(text)) throw new CeremonyError('invalid_argument', `--${name} must be a file holding hex, or lower-case hex.`);
  return hexDecode(text);
}

function integerArgument(value: string | undefined, name: string, fallback: number | undefined): number | undefined {
  if (value === undefined) return fallback;
  if (!/^(0|[1-9][0-9]{0,15})$/.test(value)) throw new CeremonyError('invalid_argument', `--${name} must be a whole number.`);
  return Number(value);
}

function emit(io: CliIo, out: string | undefined, label: string, bytes: Uint8Array): void {
  if (out === undefined) {
    io.stdout(`${hexEncode(bytes)}\n`);
    return;
  }
  writeOwnerOnlyFile(out, `${hexEncode(bytes)}\n`);
  io.stderr(`${label} written to ${out}\n`);
}

const utc = (seconds: number) => new Date(seconds * 1000).toISOString();

async function withDatabase<T>(io: CliIo, run: (database: Awaited<ReturnType<typeof openLicenseDatabase>>, config: ReturnType<typeof loadLicenseConfig>) => Promise<T>): Promise<T> {
  const config = loadLicenseConfig(io.env);
  const database = await openLicenseDatabase(config);
  try {
    return await run(database, config);
  } finally {
    await database.close();
  }
}

async function dispatch(args: string[], io: CliIo): Promise<number | undefined> {
  const [group, action, ...rest] = args;
  const clock = io.clock ?? systemClock;
  const options = (spec: Record<string, { type: 'string' }>) => parseArgs({ args: rest, options: spec, strict: true, allowPositionals: false }).values as Record<string, string | undefined>;

  if (group === undefined || group === 'serve') {
    if (action !== undefined) throw new CeremonyError('invalid_argument', 'serve takes no arguments.');
    await runLicenseFromEnv(io.env as NodeJS.ProcessEnv);
    return undefined;
  }
  if (isAdminCommand(group)) return runAdminCommand(args, io);
  if (group === 'help' || group === '--help' || group === '-h') {
    io.stdout(usage);
    return 0;
  }
  if (group === 'root' && action === 'create') {
    const { out } = options({ out: { type: 'string' } });
    if (out === undefined) throw new CeremonyError('invalid_argument', '--out is required.');
    const root = createRootKeyFile(out);
    io.stdout(`root public key: ${hexEncode(root.publicKey)}\nroot key id: ${root.keyIdHex}\n`);
    io.stderr(`Keep ${out} offline. Pin the public key in clients and in the server: LICENSE_ROOT_PUBLIC_KEYS=${hexEncode(root.publicKey)}\n`);
    return 0;
  }
  if (group === 'root' && action === 'sign') {
    const values = options({ root: { type: 'string' }, request: { type: 'string' }, out: { type: 'string' } });
    if (values['root'] === undefined) throw new CeremonyError('invalid_argument', '--root is required.');
    const { certificate, request } = await signEpochRequestWithRootFile(values['root'], hexArgument(values['request'], 'request'));
    io.stderr(
      `Signed epoch ${hexEncode(request.epochId)} (key ${hexEncode(request.publicKey)}), valid ${utc(request.notBefore)} to ${utc(request.notAfter)}, ` +
        `${request.productScope === undefined ? 'every product' : `product ${request.productScope}`}.\n`,
    );
    emit(io, values['out'], 'certificate', certificate);
    return 0;
  }
  if (group === 'epoch' && action === 'create') {
    const values = options({ product: { type: 'string' }, days: { type: 'string' }, 'not-before': { type: 'string' }, out: { type: 'string' } });
    const days = integerArgument(values['days'], 'days', 90) as number;
    const notBefore = integerArgument(values['not-before'], 'not-before', undefined);
    const config = loadLicenseConfig(io.env);
    // With real pins this is a real ceremony: an epoch sealed under a generated dev master key would not
    // open on servers that use LICENSE_MASTER_KEY, and could never sign.
    if (config.masterKey === undefined && config.rootPublicKeys.length > 0) {
      throw new CeremonyError(
        'missing_configuration',
        'LICENSE_ROOT_PUBLIC_KEYS is set but LICENSE_MASTER_KEY is not: set LICENSE_MASTER_KEY to the key your servers use, so they can open the new epoch key.',
      );
    }
    return withDatabase(io, async (database) => {
      const { epoch, request } = await createEpochRequest(database.sql, {
        masterKey: resolveMasterKey(config).key,
        days,
        clock,
        ...(notBefore === undefined ? {} : { notBefore }),
        ...(values['product'] === undefined ? {} : { productScope: values['product'] }),
      });
      io.stderr(`Epoch ${epoch.epochIdHex} is pending, valid ${utc(epoch.notBefore)} to ${utc(epoch.notAfter)}. Have the root sign this request (tollgate-license root sign):\n`);
      emit(io, values['out'], 'certificate request', request);
      return 0;
    });
  }
  if (group === 'epoch' && action === 'load') {
    const values = options({ certificate: { type: 'string' } });
    const certificate = hexArgument(values['certificate'], 'certificate');
    return withDatabase(io, async (database, config) => {
      const epoch = await loadEpochCertificate(database.sql, { certificate, pinnedRoots: resolvePinnedRoots(config), clock });
      io.stdout(`epoch ${epoch.epochIdHex} active, valid ${utc(epoch.notBefore)} to ${utc(epoch.notAfter)}\n`);
      io.stderr('Running servers publish it at their next keyset refresh (LICENSE_KEYSET_REFRESH_SECONDS).\n');
      return 0;
    });
  }
  throw new CeremonyError('invalid_argument', `Unknown command: ${args.join(' ')}`);
}

/** True for every refusal of `node:util` `parseArgs`: unknown option, missing value, stray positional. */
function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

/**
 * The `tollgate-license` command line: `serve` (default), the key ceremony subcommands and the operator
 * commands (`bootstrap`, `tokens`, `products`; see `runAdminCommand`). Errors are
 * printed as one line (never with key material) and give exit status 1; usage errors (an unknown
 * command or option, a missing option value, a stray argument, a malformed value) print the usage and
 * give 2. `epoch create` refuses to seal under a generated dev master key when root pins are configured.
 *
 * @param args - Arguments after the program name.
 * @param io - Environment and output streams.
 * @returns The exit status, or `undefined` while the server runs.
 *
 * @example
 * ```ts
 * import { runLicenseCli } from '@tollgate/license-server';
 * const status = await runLicenseCli(['root', 'create', '--out', 'root.key'], { env: process.env, stdout: console.log, stderr: console.error });
 * ```
 */
export async function runLicenseCli(args: string[], io: CliIo): Promise<number | undefined> {
  try {
    return await dispatch(args, io);
  } catch (error) {
    const isUsage = (error instanceof CeremonyError && error.code === 'invalid_argument') || isParseArgsError(error);
    const message =
      error instanceof ConfigError || isArtifactError(error) || isTollgateError(error) || isUsage ? (error as Error).message : `unexpected error: ${String(error)}`;
    io.stderr(`tollgate-license: ${message}\n${isUsage ? `\n${usage}` : ''}`);
    return isUsage ? 2 : 1;
  }
}
