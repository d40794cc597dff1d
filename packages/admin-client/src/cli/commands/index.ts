import { analyticsCommands } from './analytics';
import { auditCommands } from './audit';
import { catalogReadCommands } from './catalog-reads';
import type { CliCommand } from './command';
import { dsrCommands } from './dsr';
import { epochCommands } from './epochs';
import { licenseCommands } from './licenses';
import { machineCommands } from './machines';

/** Every `tollgate-admin` command, in the order the usage lists them. */
export const allCommands: readonly CliCommand[] = [...licenseCommands, ...machineCommands, ...epochCommands, ...auditCommands, ...analyticsCommands, ...catalogReadCommands, ...dsrCommands];

/**
 * Finds a command by its two words.
 *
 * @param group - First word (`licenses`).
 * @param action - Second word (`list`).
 * @returns The command, or `undefined`.
 */
export function findCommand(group: string | undefined, action: string | undefined): CliCommand | undefined {
  return allCommands.find((command) => command.group === group && command.action === action);
}

/** Whether `group` is the first word of some command. */
export const isCommandGroup = (group: string | undefined): boolean => allCommands.some((command) => command.group === group);
