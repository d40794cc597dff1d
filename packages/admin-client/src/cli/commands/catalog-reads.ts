import { choiceOption, optionalString } from '../arguments';
import { collect, listLimitHelp, listLimitOption, pageSizeFor, type CliCommand } from './command';
import { listLimit, printList } from './lists';

const policies: CliCommand<{ productId?: string; limit: number }> = {
  group: 'policies',
  action: 'list',
  synopsis: '[--product <id>] [--limit <n>]',
  summary: 'list policies, newest first',
  details: `  --product <id>  only this product's policies\n${listLimitHelp}`,
  options: { product: { type: 'string' }, ...listLimitOption },
  positionals: [],
  parse: (values) => {
    const productId = optionalString(values, 'product');
    return { limit: listLimit(values), ...(productId === undefined ? {} : { productId }) };
  },
  run: async (context, input) => {
    const { limit, ...filters } = input;
    const page = await collect(context.client.policies.list({ ...filters, limit: pageSizeFor(limit) }), limit);
    const policy = (row: Readonly<Record<string, unknown>>) => (row['policy'] ?? {}) as Record<string, unknown>;
    return printList(context, 'policies', page, [
      { heading: 'POLICY_ID', cell: (row) => policy(row)['id'] },
      { heading: 'NAME', cell: (row) => policy(row)['name'] },
      { heading: 'PRODUCT_ID', cell: (row) => policy(row)['product_id'] },
      { heading: 'SEATS', cell: (row) => policy(row)['seats'] },
      { heading: 'VERSION', cell: (row) => row['version'] },
      { heading: 'UPDATED_AT', cell: (row) => row['updated_at'] },
    ]);
  },
};

const releaseStates = ['registered', 'deprecated', 'compromised'] as const;

const releases: CliCommand<{ productId?: string; channel?: string; state?: (typeof releaseStates)[number]; limit: number }> = {
  group: 'releases',
  action: 'list',
  synopsis: '[--product <id>] [--channel <name>] [--state registered|deprecated|compromised] [--limit <n>]',
  summary: 'list releases, newest first',
  details: listLimitHelp,
  options: { product: { type: 'string' }, channel: { type: 'string' }, state: { type: 'string' }, ...listLimitOption },
  positionals: [],
  parse: (values) => {
    const productId = optionalString(values, 'product');
    const channel = optionalString(values, 'channel');
    const state = choiceOption(values, 'state', releaseStates);
    return { limit: listLimit(values), ...(productId === undefined ? {} : { productId }), ...(channel === undefined ? {} : { channel }), ...(state === undefined ? {} : { state }) };
  },
  run: async (context, input) => {
    const { limit, ...filters } = input;
    const page = await collect(context.client.releases.list({ ...filters, limit: pageSizeFor(limit) }), limit);
    return printList(context, 'releases', page, [
      { heading: 'RELEASE_ID', cell: (row) => row['release_id'] },
      { heading: 'PRODUCT_ID', cell: (row) => row['product_id'] },
      { heading: 'VERSION', cell: (row) => row['app_version'] },
      { heading: 'CHANNEL', cell: (row) => row['channel'] },
      { heading: 'STATE', cell: (row) => row['state'] },
      { heading: 'CREATED_AT', cell: (row) => row['created_at'] },
    ]);
  },
};

/** `policies list` and `releases list`. */
export const catalogReadCommands: readonly CliCommand[] = [policies, releases];
