import { createAdminClient, type AdminClient } from '../client';
import { AdminApiError, AdminClientError, AdminNetworkError, AdminResponseError, AdminTimeoutError } from '../errors';
import type { AdminClientOptions } from '../transport';
import { parseCommandArguments, refuseTokenFlag, splitCommandLine, UsageError } from './arguments';
import { allCommands, findCommand, isCommandGroup } from './commands';
import { resolveConnection } from './connection';
import { exitCodes, type ExitCode } from './exit-codes';
import { createCommandOutput, type CliStreams, type CommandOutput } from './output';
import { commandHelp, usageText } from './usage';

/** Where `tollgate-admin` reads its environment and writes its output. */
export interface AdminCliIo extends CliStreams {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Builds the client (tests may wrap it); `createAdminClient` by default. */
  readonly createClient?: (options: AdminClientOptions) => AdminClient;
}

/** An error as one stderr line and, with `--json`, as the `{ error }` document on stdout. */
function describeError(error: unknown): { exit: ExitCode; line: string; document: Record<string, unknown> } {
  if (error instanceof AdminApiError) {
    const request = error.requestId === undefined ? '' : ` (request ${error.requestId})`;
    return {
      exit: exitCodes.apiError,
      line: `error ${error.code} (HTTP ${error.status}): ${error.message}${request}`,
      document: { code: error.code, status: error.status, message: error.message, request_id: error.requestId ?? null },
    };
  }
  if (error instanceof AdminNetworkError || error instanceof AdminTimeoutError) {
    return { exit: exitCodes.network, line: `${error.code}: ${error.message}`, document: { code: error.code, message: error.message } };
  }
  if (error instanceof AdminResponseError || error instanceof AdminClientError) {
    return { exit: exitCodes.apiError, line: `${error.code}: ${error.message}`, document: { code: error.code, message: error.message } };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { exit: exitCodes.apiError, line: `unexpected error: ${message}`, document: { code: 'unexpected_error', message } };
}

/**
 * Runs `tollgate-admin` with `args` and returns its exit status (see `exitCodes`). Never throws and
 * never writes the token: error texts are scrubbed of it as a last line of defence.
 *
 * @param args - The arguments after the program name.
 * @param io - Environment and output streams.
 * @returns The exit status.
 * @example
 * ```ts
 * const status = await runAdminCli(['licenses', 'list', '--product', productId, '--json'], {
 *   env: process.env,
 *   stdout: (text) => void process.stdout.write(text),
 *   stderr: (text) => void process.stderr.write(text),
 * });
 * ```
 */
export async function runAdminCli(args: readonly string[], io: AdminCliIo): Promise<ExitCode> {
  let json = args.includes('--json');
  let token: string | undefined;
  // Real Admin tokens are long; scrubbing a short test value would mangle every message instead.
  const scrub = (text: string) => (token === undefined || token.length < 12 ? text : text.split(token).join('[redacted]'));
  const streams: CliStreams = { stdout: (text) => io.stdout(scrub(text)), stderr: (text) => io.stderr(scrub(text)) };
  let helpHint = 'tollgate-admin --help';
  let output: CommandOutput | undefined;
  try {
    refuseTokenFlag(args);
    const { group, action, rest } = splitCommandLine(args);
    if (group === undefined || group === 'help' || (action === undefined && rest.some((arg) => arg === '--help' || arg === '-h'))) {
      const asked = group === 'help' || rest.includes('--help') || rest.includes('-h');
      (asked ? streams.stdout : streams.stderr)(usageText(allCommands.filter((command) => group === undefined || group === 'help' || command.group === group)));
      return asked ? exitCodes.ok : exitCodes.usage;
    }
    const command = findCommand(group, action);
    if (command === undefined) {
      if (isCommandGroup(group)) helpHint = `tollgate-admin ${group} --help`;
      throw new UsageError(isCommandGroup(group) ? `Unknown ${group} command: ${action ?? '(none)'}.` : `Unknown command: ${group}.`);
    }
    helpHint = `tollgate-admin ${command.group} ${command.action} --help`;
    const { values, positionals } = parseCommandArguments(rest, command.options, command.positionals);
    json = values['json'] === true;
    if (values['help'] === true) {
      await streams.stdout(commandHelp(command));
      return exitCodes.ok;
    }
    const input = command.parse(values, positionals);
    const connection = resolveConnection(values, io.env, streams.stderr);
    token = connection.token;
    const client = (io.createClient ?? createAdminClient)({ baseUrl: connection.baseUrl, token: connection.token });
    output = createCommandOutput(streams, json);
    return await command.run({ client, output, streams }, input);
  } catch (error) {
    if (error instanceof UsageError) {
      streams.stderr(`tollgate-admin: ${error.message}\nRun '${helpHint}' for usage.\n`);
      if (json) await streams.stdout(`${JSON.stringify({ error: { code: 'usage_error', message: error.message } }, null, 2)}\n`);
      return exitCodes.usage;
    }
    const described = describeError(error);
    streams.stderr(`tollgate-admin: ${described.line}\n`);
    // A command that failed midway may have printed its partial result (issued keys): that stays the one document.
    if (json && output?.printed !== true) await streams.stdout(`${JSON.stringify({ error: described.document }, null, 2)}\n`);
    return described.exit;
  }
}
