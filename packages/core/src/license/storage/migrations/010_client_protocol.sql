-- The client protocol's state (docs/protocol.md §14, docs/decisions.md "License: client protocol"):
-- what activation, validation and heartbeats record on machines, the nonce store, the idempotency and
-- offline archives, and raw telemetry blocks. Every row naming a machine goes with it when the machine
-- is erased (ON DELETE CASCADE), so the DSR cascade needs no step of its own for these tables.

-- `device_kem_key` is the X25519 key the device sent at activation (the credential secret will be
-- sealed to it). `account_id` is set for machines activated with an account token: the account's
-- device limit counts them. `offline` marks air-gapped activations: they never heartbeat, so seat
-- reclaim skips them. `last_seen_at` (migration 007) is bumped by every authenticated request and is
-- what seat reclaim measures silence by; the two columns below say which kind came last.
-- `deactivation_reason` tells a seat the device gave back (`client`) from one reclaimed for silence
-- (`reclaimed`): validation answers the latter with a kill order of reason 3.
ALTER TABLE license_machines
  ADD COLUMN device_kem_key bytea CHECK (device_kem_key IS NULL OR octet_length(device_kem_key) = 32),
  ADD COLUMN account_id text REFERENCES license_accounts (account_id),
  ADD COLUMN offline boolean NOT NULL DEFAULT false,
  ADD COLUMN app_version text CHECK (char_length(app_version) BETWEEN 1 AND 64),
  ADD COLUMN last_validated_at timestamptz,
  ADD COLUMN last_heartbeat_at timestamptz,
  ADD COLUMN deactivation_reason text CHECK (deactivation_reason IN ('client', 'reclaimed'));
-- The account device limit counts an account's active machines under the account's row lock.
CREATE INDEX license_machines_account_active ON license_machines (account_id) WHERE status = 'active' AND account_id IS NOT NULL;
-- Seat reclaim scans active online machines by silence.
CREATE INDEX license_machines_silence ON license_machines (last_seen_at) WHERE status = 'active' AND NOT offline;

-- Nonces of device requests, one use each. `scope` is the machine id (validate, heartbeat, deactivate)
-- or the device public key (activation and offline requests, which come before a machine exists).
-- A request is refused when its (scope, nonce) is already here; rows are purged after `expires_at`.
CREATE TABLE license_client_nonces (
  scope bytea NOT NULL CHECK (octet_length(scope) BETWEEN 16 AND 32),
  nonce bytea NOT NULL CHECK (octet_length(nonce) = 32),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (scope, nonce)
);
CREATE INDEX license_client_nonces_expiry ON license_client_nonces (expires_at);

-- Answers of POST /v1/activate, /v1/deactivate and /v1/offline/request by Idempotency-Key. `scope` is
-- the device public key (activate, offline) or the machine id (deactivate): only the holder of that
-- device key can write a row (the proof is checked first), so keys chosen by different devices never
-- collide. The key itself is kept only as its SHA-256; `request_digest` is the SHA-256 of the canonical
-- request body, so a replay of another body under the same key is told apart. `body` is the answer
-- byte for byte (a signed artifact or a CBOR message: nothing secret).
CREATE TABLE license_client_idempotency (
  route text NOT NULL CHECK (route IN ('activate', 'deactivate', 'offline')),
  scope bytea NOT NULL CHECK (octet_length(scope) BETWEEN 16 AND 32),
  key_hash bytea NOT NULL CHECK (octet_length(key_hash) = 32),
  request_digest bytea NOT NULL CHECK (octet_length(request_digest) = 32),
  machine_id text NOT NULL REFERENCES license_machines (machine_id) ON DELETE CASCADE,
  status integer NOT NULL CHECK (status BETWEEN 200 AND 299),
  body bytea NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (route, scope, key_hash)
);
CREATE INDEX license_client_idempotency_expiry ON license_client_idempotency (expires_at);
CREATE INDEX license_client_idempotency_machine ON license_client_idempotency (machine_id);

-- Offline activation answers by (license, nonce): a replay of the nonce gets these bytes back, whatever
-- its Idempotency-Key. Kept until the answer's valid_until (after that it could not be imported).
CREATE TABLE license_offline_responses (
  license_id text NOT NULL REFERENCES license_licenses (license_id),
  nonce bytea NOT NULL CHECK (octet_length(nonce) = 32),
  machine_id text NOT NULL REFERENCES license_machines (machine_id) ON DELETE CASCADE,
  body bytea NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (license_id, nonce)
);
CREATE INDEX license_offline_responses_expiry ON license_offline_responses (expires_at);
CREATE INDEX license_offline_responses_machine ON license_offline_responses (machine_id);

-- Raw T1 telemetry blocks (ValidateRequest key 11) that passed both gates (the policy allows `t1`, the
-- block's consent_version > 0), stored as their canonical CBOR. Rollups and the 30-day purge belong to
-- the telemetry work; nothing here is keyed by anything but the machine it came from.
CREATE TABLE license_telemetry_raw (
  telemetry_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  product_id text NOT NULL REFERENCES license_products (product_id),
  machine_id text NOT NULL REFERENCES license_machines (machine_id) ON DELETE CASCADE,
  consent_version bigint NOT NULL CHECK (consent_version >= 1),
  block bytea NOT NULL CHECK (octet_length(block) BETWEEN 1 AND 512),
  received_at timestamptz NOT NULL
);
CREATE INDEX license_telemetry_raw_received ON license_telemetry_raw (received_at);
CREATE INDEX license_telemetry_raw_machine ON license_telemetry_raw (machine_id);
