/** Policy documents shared by the policy unit tests. */
import type { PolicyDocument } from '../../src/license/model/policies/policy-document';

/** A full, valid document that draws no warning (product and id are fixed hex; tiers `pro` and `free`). */
export const fullPolicy: PolicyDocument = {
  id: 'cd'.repeat(16),
  product_id: 'ab'.repeat(16),
  name: 'Pro yearly',
  seats: 3,
  validation_interval_seconds: 86_400,
  validation_grace_seconds: 604_800,
  heartbeat_window_seconds: null,
  offline_allowed: true,
  version_scope: { min: '2.0.0', max_exclusive: '3.0.0' },
  tier: 'pro',
  telemetry: 't1',
  duration_seconds: 31_536_000,
  expiry_behavior: 'fallback',
  fallback_tier: 'free',
};
