import type { DsrSubject } from '../../resources/dsr';
import { optionalString, UsageError } from '../arguments';
import { exitCodes } from '../exit-codes';
import type { CliCommand } from './command';

/** `dsr export`: a data-subject export is a document, so it is printed as JSON with or without `--json`. */
const exportCommand: CliCommand<DsrSubject> = {
  group: 'dsr',
  action: 'export',
  synopsis: '--machine <id> | --license <id>',
  summary: 'export every record held about a machine or a license (JSON)',
  details: '  Exactly one of --machine and --license. Printed as JSON in both modes: it is a document to hand over.\n',
  options: { machine: { type: 'string' }, license: { type: 'string' } },
  positionals: [],
  parse: (values) => {
    const machineId = optionalString(values, 'machine');
    const licenseId = optionalString(values, 'license');
    if ((machineId === undefined) === (licenseId === undefined)) throw new UsageError('Pass exactly one of --machine <id> and --license <id>.');
    return machineId !== undefined ? { machineId } : { licenseId: licenseId as string };
  },
  run: async (context, subject) => {
    const document = await context.client.dsr.export(subject);
    await context.output.result(document, () => `${JSON.stringify(document, null, 2)}\n`);
    return exitCodes.ok;
  },
};

/** The `dsr` commands. */
export const dsrCommands: readonly CliCommand[] = [exportCommand];
