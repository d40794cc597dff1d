import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { fullPolicy } from '../../../../test/support/policy-fixtures';
import { policyCreateSchema, policyDefaults, policyDocument, policyReplaceSchema, type PolicyDocument } from './policy-document';

const productId = fullPolicy.product_id;

const problems = (schema: v.GenericSchema, input: unknown) => {
  const result = v.safeParse(schema, input);
  return result.success ? [] : result.issues.map((issue) => `${v.getDotPath(issue) ?? ''}|${issue.message}`);
};

describe('Policy document (POST)', () => {
  it('fills every default and needs only product_id and name', () => {
    const parsed = v.parse(policyCreateSchema, { product_id: productId, name: 'Basic' });
    expect(parsed).toEqual({ product_id: productId, name: 'Basic', ...policyDefaults });
    expect(parsed.id).toBeUndefined();
  });

  it('accepts a full document and keeps it as given', () => {
    expect(v.parse(policyCreateSchema, fullPolicy)).toEqual(fullPolicy);
  });

  it.each([
    ['seats', 0],
    ['seats', 10_001],
    ['seats', 2.5],
    ['seats', '3'],
    ['validation_interval_seconds', 59],
    ['validation_interval_seconds', 31_536_001],
    ['validation_grace_seconds', -1],
    ['validation_grace_seconds', 31_536_001],
    ['heartbeat_window_seconds', 59],
    ['heartbeat_window_seconds', 86_401],
    ['offline_allowed', 'yes'],
    ['telemetry', 't2'],
    ['duration_seconds', 3_599],
    ['duration_seconds', 0],
    ['expiry_behavior', 'block'],
    ['tier', 'Pro'],
    ['tier', ''],
    ['name', ''],
    ['name', 'n'.repeat(201)],
    ['id', 'CD'.repeat(16)],
    ['id', 'cd'],
    ['product_id', 'nope'],
    ['version_scope', { min: 'v2' }],
    ['version_scope', { min: '1.0.0', max: '2.0.0' }],
    ['version_scope', '>=1.0.0'],
  ])('refuses %s = %j, naming the field', (field, value) => {
    const found = problems(policyCreateSchema, { ...fullPolicy, [field]: value });
    expect(found.length).toBeGreaterThan(0);
    expect(found.join(' ')).toContain(field);
  });

  it('accepts the range ends', () => {
    for (const [field, value] of Object.entries({
      seats: 10_000,
      validation_interval_seconds: 60,
      validation_grace_seconds: 0,
      heartbeat_window_seconds: 86_400,
      duration_seconds: 3_600,
    })) {
      expect(problems(policyCreateSchema, { ...fullPolicy, [field]: value }), field).toEqual([]);
    }
    expect(problems(policyCreateSchema, { ...fullPolicy, validation_interval_seconds: 31_536_000, validation_grace_seconds: 31_536_000, heartbeat_window_seconds: 60, duration_seconds: null })).toEqual([]);
  });

  it('refuses unknown fields', () => {
    expect(problems(policyCreateSchema, { ...fullPolicy, max_machines: 3 }).join(' ')).toContain('max_machines');
  });

  it('ties fallback_tier to expiry_behavior "fallback"', () => {
    expect(problems(policyCreateSchema, { ...fullPolicy, fallback_tier: null }).join(' ')).toContain('fallback_tier is required');
    expect(problems(policyCreateSchema, { ...fullPolicy, expiry_behavior: 'deny' }).join(' ')).toContain('fallback_tier must be null');
    expect(problems(policyCreateSchema, { ...fullPolicy, expiry_behavior: 'grace', fallback_tier: null })).toEqual([]);
  });

  it('needs version_scope.min to precede max_exclusive by SemVer precedence', () => {
    expect(problems(policyCreateSchema, { ...fullPolicy, version_scope: { min: '2.0.0', max_exclusive: '2.0.0' } }).join(' ')).toContain('precede');
    expect(problems(policyCreateSchema, { ...fullPolicy, version_scope: { min: '2.10.0', max_exclusive: '2.9.0' } }).join(' ')).toContain('precede');
    expect(problems(policyCreateSchema, { ...fullPolicy, version_scope: { min: '2.0.0-rc.1', max_exclusive: '2.0.0' } })).toEqual([]);
    expect(problems(policyCreateSchema, { ...fullPolicy, version_scope: { max_exclusive: '2.0.0' } })).toEqual([]);
    expect(problems(policyCreateSchema, { ...fullPolicy, version_scope: {} }).join(' ')).toContain('min and/or max_exclusive');
  });
});

describe('Policy document (PATCH)', () => {
  it('takes the full document, id included', () => {
    expect(policyDocument(v.parse(policyReplaceSchema, fullPolicy))).toEqual(fullPolicy);
  });

  it.each(Object.keys(fullPolicy))('refuses a document without %s', (field) => {
    const { [field as keyof PolicyDocument]: _left, ...rest } = fullPolicy;
    expect(problems(policyReplaceSchema, rest).join(' ')).toContain(field);
  });
});

describe('policyDocument', () => {
  it('puts fields in the documented order whatever order they come in', () => {
    const shuffled = Object.fromEntries(Object.entries(fullPolicy).reverse()) as unknown as PolicyDocument;
    expect(JSON.stringify(policyDocument(shuffled))).toBe(JSON.stringify(fullPolicy));
    expect(Object.keys(policyDocument({ ...fullPolicy, version_scope: { max_exclusive: '3.0.0', min: '1.0.0' } }).version_scope ?? {})).toEqual(['min', 'max_exclusive']);
  });
});
