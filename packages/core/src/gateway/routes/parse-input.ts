import * as v from 'valibot';
import { GatewayError } from '../../errors/gateway';

/** One problem of a refused input: where (a dot path such as `payTo` or `usdc.address`) and what was expected. */
export interface InputIssue {
  readonly field: string;
  readonly message: string;
}

/**
 * Validates a request body or query with a valibot schema, or refuses it with `invalid_request`.
 * `details.field` names the first offending field and `details.issues` lists up to ten problems, so a
 * client fixes all of them at once.
 *
 * @param schema - The schema.
 * @param input - The parsed body or query.
 * @returns The validated output.
 * @throws GatewayError `invalid_request`.
 * @example
 * ```ts
 * import { parseGatewayInput, createRefRequestSchema } from '@tollgate/core/gateway';
 * const options = parseGatewayInput(createRefRequestSchema, request.body);
 * ```
 */
export function parseGatewayInput<Schema extends v.GenericSchema>(schema: Schema, input: unknown): v.InferOutput<Schema> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const issues: InputIssue[] = result.issues.slice(0, 10).map((issue) => ({
    field: v.getDotPath(issue) ?? '',
    message: issue.message,
  }));
  const first = issues[0] ?? { field: '', message: 'invalid input' };
  const where = first.field === '' ? 'The request' : first.field;
  throw new GatewayError('invalid_request', `${where}: expected ${first.message}.`, { details: { field: first.field, issues } });
}
