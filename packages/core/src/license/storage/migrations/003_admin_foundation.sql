-- Admin API foundation (docs/decisions.md "License: Admin API"): vendors and their products, Admin
-- tokens stored as keyed hashes, and the idempotency journal.

CREATE TABLE license_vendors (
  vendor_id text PRIMARY KEY CHECK (vendor_id ~ '^[0-9a-f]{32}$'),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL
);

-- A product belongs to one vendor forever. The alert webhook is the per-product suspicion alert
-- (delivered by the client-protocol work); both columns are set together or not at all.
CREATE TABLE license_products (
  product_id text PRIMARY KEY CHECK (product_id ~ '^[0-9a-f]{32}$'),
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  alert_webhook_url text CHECK (char_length(alert_webhook_url) <= 2048),
  alert_threshold integer CHECK (alert_threshold BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((alert_webhook_url IS NULL) = (alert_threshold IS NULL))
);
CREATE INDEX license_products_vendor ON license_products (vendor_id, created_at, product_id);

-- Only the keyed hash of a token is kept (HMAC under a subkey of LICENSE_MASTER_KEY).
CREATE TABLE license_admin_tokens (
  token_id text PRIMARY KEY CHECK (token_id ~ '^[0-9a-f]{32}$'),
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  token_hash text NOT NULL UNIQUE,
  label text NOT NULL CHECK (char_length(label) <= 200),
  scopes text[] NOT NULL CHECK (cardinality(scopes) >= 1),
  created_at timestamptz NOT NULL,
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX license_admin_tokens_vendor ON license_admin_tokens (vendor_id, created_at);

-- One row per (vendor, Idempotency-Key): written in the same transaction as the mutation it answers,
-- so a key is either unused or bound to exactly one committed effect and its answer. The answer is
-- sealed (it can hold plaintext license keys); the key itself is kept only as a SHA-256 hash.
CREATE TABLE license_idempotency (
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  key_hash bytea NOT NULL CHECK (octet_length(key_hash) = 32),
  fingerprint bytea NOT NULL CHECK (octet_length(fingerprint) = 32),
  status integer NOT NULL,
  sealed_answer bytea NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (vendor_id, key_hash)
);
CREATE INDEX license_idempotency_expiry ON license_idempotency (expires_at);
