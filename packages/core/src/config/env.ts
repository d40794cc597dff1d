import * as v from 'valibot';
import { TollgateError } from '../errors/base';

/** Environment variables as a plain record (`process.env` in Node). */
export type EnvRecord = Record<string, string | undefined>;

/** A schema of one environment variable: reads a string (or nothing) and outputs a typed value. */
export type EnvVarSchema<T> = v.GenericSchema<string | undefined, T>;

/** Masks the password of any `scheme://user:password@host` in `text`, so a bad DATABASE_URL never prints its secret. */
function redactCredentials(text: string): string {
  return text.replace(/(\/\/[^/:@\s]*):[^@\s]*@/g, '$1:***@');
}

/**
 * Raised when configuration is invalid. The message names every offending variable and what it
 * expected, e.g. `GATEWAY_PORT: expected an integer from 1 to 65535, got "http"`.
 */
export class ConfigError extends TollgateError {
  override readonly name = 'ConfigError';
  /** One entry per invalid variable. */
  readonly problems: { variable: string; expected: string; received: string | undefined }[];

  constructor(reported: ConfigError['problems']) {
    // Credentials inside URLs (postgres://user:password@…) are masked before anything keeps them.
    const problems = reported.map((p) => (p.received === undefined ? p : { ...p, received: redactCredentials(p.received) }));
    super(
      'invalid_config',
      `Invalid configuration:\n${problems.map((p) => `  ${p.variable}: expected ${p.expected}, got ${p.received === undefined ? 'nothing' : JSON.stringify(p.received)}`).join('\n')}`,
      { details: { variables: problems.map((p) => p.variable) } },
    );
    this.problems = problems;
  }
}

/**
 * Parses environment variables with one valibot schema per variable, collecting every problem before
 * failing so an operator fixes all of them in one go. Values never appear in logs beyond this error.
 *
 * @example
 * ```ts
 * import { parseEnv, envInteger, envString } from '@tollgate/core/config';
 * const config = parseEnv(process.env, { PORT: envInteger({ min: 1, max: 65535, default: 4020 }), DATABASE_URL: envString({ optional: true }) });
 * ```
 */
export function parseEnv<Shape extends Record<string, EnvVarSchema<unknown>>>(
  env: EnvRecord,
  shape: Shape,
): { [K in keyof Shape]: v.InferOutput<Shape[K]> } {
  const out: Record<string, unknown> = {};
  const problems: ConfigError['problems'] = [];
  for (const [variable, schema] of Object.entries(shape)) {
    const raw = env[variable] === '' ? undefined : env[variable];
    const result = v.safeParse(schema, raw);
    if (result.success) out[variable] = result.output;
    else problems.push({ variable, expected: result.issues[0]?.message ?? 'a valid value', received: raw });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out as { [K in keyof Shape]: v.InferOutput<Shape[K]> };
}

/** Common options of the `env*` schemas: a default, or `optional: true` to allow the variable to be unset. */
export interface EnvOptions<T> {
  default?: T;
  optional?: boolean;
}

/** Output type of an env schema: `undefined` is possible only when `optional: true` and no default. */
type EnvOutput<T, O> = O extends { optional: true } ? (O extends { default: T } ? T : T | undefined) : T;

function withDefault<T>(inner: v.GenericSchema<string, T>, options: EnvOptions<T>, expected: string): EnvVarSchema<T> {
  return v.pipe(
    v.optional(v.string()),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      if (dataset.value === undefined) {
        if (options.default !== undefined) return options.default;
        if (options.optional) return undefined;
        addIssue({ message: expected });
        return NEVER;
      }
      const parsed = v.safeParse(inner, dataset.value);
      if (parsed.success) return parsed.output;
      addIssue({ message: expected });
      return NEVER;
    }),
  ) as EnvVarSchema<T>;
}

/** An integer variable within `[min, max]`. */
export function envInteger<O extends EnvOptions<number> & { min: number; max: number }>(options: O): EnvVarSchema<EnvOutput<number, O>> {
  const expected = `an integer from ${options.min} to ${options.max}`;
  const inner = v.pipe(v.string(), v.regex(/^-?\d+$/), v.transform(Number), v.integer(), v.minValue(options.min), v.maxValue(options.max));
  return withDefault(inner, options, expected) as EnvVarSchema<EnvOutput<number, O>>;
}

/** A non-empty string variable, optionally matching `pattern`. */
export function envString<O extends EnvOptions<string> & { pattern?: RegExp; expected?: string }>(options: O = {} as O): EnvVarSchema<EnvOutput<string, O>> {
  const expected = options.expected ?? (options.pattern ? `a string matching ${options.pattern}` : 'a non-empty string');
  const inner = options.pattern ? v.pipe(v.string(), v.regex(options.pattern)) : v.pipe(v.string(), v.minLength(1));
  return withDefault(inner, options, expected) as EnvVarSchema<EnvOutput<string, O>>;
}

/** A URL variable whose protocol is one of `protocols` (e.g. `['postgres:', 'postgresql:']`). */
export function envUrl<O extends EnvOptions<string> & { protocols: string[] }>(options: O): EnvVarSchema<EnvOutput<string, O>> {
  const expected = `a URL with protocol ${options.protocols.join(' or ')}`;
  const inner = v.pipe(
    v.string(),
    v.check((value) => {
      try {
        return options.protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    }),
  );
  return withDefault(inner, options, expected) as EnvVarSchema<EnvOutput<string, O>>;
}

/** One of a fixed set of values. */
export function envEnum<const T extends string, O extends EnvOptions<T> = EnvOptions<T>>(values: readonly T[], options: O = {} as O): EnvVarSchema<EnvOutput<T, O>> {
  const inner = v.picklist(values) as unknown as v.GenericSchema<string, T>;
  return withDefault(inner, options, `one of ${values.join(', ')}`) as EnvVarSchema<EnvOutput<T, O>>;
}

/** A boolean written as `true`/`false`/`1`/`0`. */
export function envBoolean<O extends EnvOptions<boolean>>(options: O = {} as O): EnvVarSchema<EnvOutput<boolean, O>> {
  const inner = v.pipe(v.picklist(['true', 'false', '1', '0']), v.transform((value) => value === 'true' || value === '1'));
  return withDefault(inner, options, 'true, false, 1 or 0') as EnvVarSchema<EnvOutput<boolean, O>>;
}
