-- Account sessions of the client protocol (`POST /v1/account/login`, `/refresh`, `/logout`) and the login
-- gate. docs/decisions.md "License: account sessions".

-- One row per session family (one login). The live token pair sits on the row: an access token resolves
-- only through `access_hash`, and a refresh rotates both hashes in one UPDATE, so two refreshes racing
-- with one token queue on the row lock and exactly one matches. Tokens are stored only as keyed hashes
-- (64 hex digits of HMAC-SHA-256 under a subkey of LICENSE_MASTER_KEY). `generation` counts rotations.
-- `vendor_id` and `product_id` repeat the account's so the verifier reads one row.
CREATE TABLE license_account_sessions (
  session_id text PRIMARY KEY CHECK (session_id ~ '^[0-9a-f]{32}$'),
  account_id text NOT NULL REFERENCES license_accounts (account_id) ON DELETE CASCADE,
  vendor_id text NOT NULL,
  product_id text NOT NULL,
  access_hash text NOT NULL UNIQUE CHECK (access_hash ~ '^[0-9a-f]{64}$'),
  access_expires_at timestamptz NOT NULL,
  refresh_hash text NOT NULL UNIQUE CHECK (refresh_hash ~ '^[0-9a-f]{64}$'),
  refresh_expires_at timestamptz NOT NULL,
  generation integer NOT NULL CHECK (generation >= 0),
  created_at timestamptz NOT NULL,
  rotated_at timestamptz NOT NULL,
  revoked_at timestamptz,
  revoke_reason text CHECK (revoke_reason IN ('logout', 'refresh_reuse')),
  CHECK ((revoked_at IS NULL) = (revoke_reason IS NULL))
);
CREATE INDEX license_account_sessions_account ON license_account_sessions (account_id);
-- The purge: families whose refresh token has expired.
CREATE INDEX license_account_sessions_refresh_expiry ON license_account_sessions (refresh_expires_at);

-- Refresh tokens already rotated away. Presenting one again is reuse: the family it belongs to is revoked.
-- Rows live as long as their family (cascade).
CREATE TABLE license_account_spent_refresh_tokens (
  token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  session_id text NOT NULL REFERENCES license_account_sessions (session_id) ON DELETE CASCADE,
  spent_at timestamptz NOT NULL
);
CREATE INDEX license_account_spent_refresh_tokens_session ON license_account_spent_refresh_tokens (session_id);

-- The login gate: one row per gated key, a keyed hash of (product, normalised email) or of a client
-- address, so an address tried against the gate is never stored in clear (nor is an unknown email).
-- Times are unix seconds: the statement mirrors `loginGateCharge` (login-gate.ts) in integers.
-- `last_allowed` carries the decision of the latest charge back to the caller (as the rate limiter's
-- `allowed` does), since a charge that is let through may itself start a lock.
CREATE TABLE license_login_gates (
  gate_key text PRIMARY KEY CHECK (gate_key ~ '^[0-9a-f]{64}$'),
  failures integer NOT NULL CHECK (failures >= 0),
  last_charge_at bigint NOT NULL,
  locked_until bigint NOT NULL,
  last_allowed boolean NOT NULL
);
CREATE INDEX license_login_gates_purge ON license_login_gates (last_charge_at);
