import type { CliCommand } from './commands/command';
import { exitCodesUsage } from './exit-codes';

const globalOptionsUsage = `Global options (any command, anywhere on the line):
  --url <url>          the license server (or TOLLGATE_ADMIN_URL)
  --token-file <path>  read the Admin token from this file (a trailing newline is ignored)
  --json               machine output: one JSON document on stdout (errors too: {"error": {...}})
  --help               help for the command

The Admin token comes from TOLLGATE_ADMIN_TOKEN or --token-file only: a --token flag is refused,
because a token on the command line lands in shell history and in the process list.
Progress and notes go to stderr; stdout holds only the result.
`;

const commandLine = (command: CliCommand) => `tollgate-admin ${command.group} ${command.action}${command.synopsis === '' ? '' : ` ${command.synopsis}`}`;

/**
 * The usage text: every command with its synopsis, or only one group's.
 *
 * @param commands - The commands to list.
 * @returns The text.
 */
export function usageText(commands: readonly CliCommand[]): string {
  const lines = commands.map((command) => `  ${commandLine(command)}\n      ${command.summary}\n`).join('');
  return `Usage: tollgate-admin <command> [options]\n\nCommands:\n${lines}\n${globalOptionsUsage}\n${exitCodesUsage}`;
}

/**
 * The `--help` text of one command.
 *
 * @param command - The command.
 * @returns The text.
 */
export function commandHelp(command: CliCommand): string {
  return `Usage: ${commandLine(command)}\n\n${command.summary}\n${command.details === undefined ? '' : `\n${command.details}`}\n${globalOptionsUsage}\n${exitCodesUsage}`;
}
