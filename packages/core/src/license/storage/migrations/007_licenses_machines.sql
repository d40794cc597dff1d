-- Licenses, their machines and their billing subscriptions (docs/decisions.md "License: licenses and
-- machines"). Every row repeats its vendor so each Admin query filters on it directly.

-- A license of one policy (and so one product). Only the keyed hash of its key is kept (HMAC under a
-- subkey of LICENSE_MASTER_KEY, label `license-key`), plus the last four characters as a hint for
-- operators. `status` is what operators set; "expired" is derived from `expires_at` and never stored.
-- A revoked license stays revoked: `revoked_at` and the revocation batch `revocation_seq` are set
-- together with the status.
CREATE TABLE license_licenses (
  license_id text PRIMARY KEY CHECK (license_id ~ '^[0-9a-f]{32}$'),
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  product_id text NOT NULL REFERENCES license_products (product_id),
  policy_id text NOT NULL REFERENCES license_policies (policy_id),
  key_hash text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  key_hint text NOT NULL CHECK (key_hint ~ '^[0-9A-Z]{4}$'),
  account_id text REFERENCES license_accounts (account_id),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended', 'revoked')),
  seats_override integer CHECK (seats_override BETWEEN 1 AND 10000),
  expires_at timestamptz,
  metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
  entitlement_overrides jsonb NOT NULL DEFAULT '{"add": [], "remove": []}' CHECK (jsonb_typeof(entitlement_overrides) = 'object'),
  version_scope_override jsonb CHECK (version_scope_override IS NULL OR jsonb_typeof(version_scope_override) = 'object'),
  tier text CHECK (char_length(tier) BETWEEN 1 AND 64),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  revoked_at timestamptz,
  revocation_seq bigint,
  revocation_reason smallint CHECK (revocation_reason BETWEEN 0 AND 255),
  CHECK ((status = 'revoked') = (revoked_at IS NOT NULL)),
  CHECK ((status = 'revoked') = (revocation_seq IS NOT NULL)),
  CHECK (status = 'revoked' OR revocation_reason IS NULL)
);
-- The Admin list: a vendor's licenses of one product, newest first.
CREATE INDEX license_licenses_vendor_product ON license_licenses (vendor_id, product_id, created_at DESC, license_id DESC);
CREATE INDEX license_licenses_policy ON license_licenses (policy_id);
CREATE INDEX license_licenses_account ON license_licenses (account_id) WHERE account_id IS NOT NULL;

-- A device activated on a license. `fingerprint_hash` is the keyed hash of the device fingerprint
-- (the activation work derives it); `device_public_key` verifies the device's signed requests.
-- `active` holds a seat; `deactivated` released it (POST /v1/deactivate or heartbeat culling);
-- `revoked` was revoked by an operator, directly or with its license.
CREATE TABLE license_machines (
  machine_id text PRIMARY KEY CHECK (machine_id ~ '^[0-9a-f]{32}$'),
  license_id text NOT NULL REFERENCES license_licenses (license_id),
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  fingerprint_hash text NOT NULL CHECK (fingerprint_hash ~ '^[0-9a-f]{64}$'),
  device_public_key bytea NOT NULL CHECK (octet_length(device_public_key) = 32),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deactivated', 'revoked')),
  name text CHECK (char_length(name) BETWEEN 1 AND 200),
  platform text CHECK (char_length(platform) BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  deactivated_at timestamptz,
  revoked_at timestamptz,
  revocation_seq bigint,
  CHECK ((status = 'revoked') = (revoked_at IS NOT NULL)),
  CHECK ((status = 'revoked') = (revocation_seq IS NOT NULL))
);
-- One active seat per device and license: a second activation of the same fingerprint must reuse it.
CREATE UNIQUE INDEX license_machines_active_fingerprint ON license_machines (license_id, fingerprint_hash) WHERE status = 'active';
CREATE INDEX license_machines_license ON license_machines (license_id, created_at DESC, machine_id DESC);
CREATE INDEX license_machines_vendor ON license_machines (vendor_id, created_at DESC, machine_id DESC);

-- The billing subscription behind a license, filled by the billing webhooks. A license has at most
-- one; `current_period_end` is when it lapses unless renewed.
CREATE TABLE license_subscriptions (
  license_id text PRIMARY KEY REFERENCES license_licenses (license_id),
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  provider text NOT NULL CHECK (provider IN ('stripe', 'paddle', 'lemonsqueezy')),
  external_id text NOT NULL CHECK (char_length(external_id) BETWEEN 1 AND 200),
  status text NOT NULL CHECK (status IN ('trialing', 'active', 'past_due', 'paused', 'canceled', 'expired')),
  current_period_end timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (provider, external_id)
);
