-- Merchants, their payTo addresses, credentials and registration challenges (gateway/store).
-- Times come from the application's Clock, never from now(), so tests can drive them.

-- A registration challenge: issued once, consumed at most once (consumed_at set by register).
CREATE TABLE gateway_challenges (
  id text PRIMARY KEY,
  origin text NOT NULL,
  action text NOT NULL,
  pay_to text NOT NULL,
  network text NOT NULL,
  webhook_sha256 text,
  nonce text NOT NULL,
  issued_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz
);

CREATE INDEX gateway_challenges_expires ON gateway_challenges (expires_at);

CREATE TABLE gateway_merchants (
  id text PRIMARY KEY,
  label text NOT NULL,
  webhook_url text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- A payTo belongs to exactly one merchant forever; retirement is final.
CREATE TABLE gateway_pay_tos (
  address text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES gateway_merchants (id),
  status text NOT NULL CONSTRAINT gateway_pay_tos_status_check CHECK (status IN ('active', 'retired')),
  proof text NOT NULL CONSTRAINT gateway_pay_tos_proof_check CHECK (proof IN ('eoa', 'erc1271')),
  proof_network text NOT NULL,
  registered_at timestamptz NOT NULL,
  retired_at timestamptz,
  CONSTRAINT gateway_pay_tos_retired_check CHECK ((status = 'retired') = (retired_at IS NOT NULL))
);

CREATE INDEX gateway_pay_tos_merchant ON gateway_pay_tos (merchant_id, registered_at);

-- API keys (stored only as their keyed hash) and notify keys (derived from the server secret, so
-- only the id and status are stored). At most one current and one previous per merchant and kind.
CREATE TABLE gateway_credentials (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES gateway_merchants (id),
  kind text NOT NULL CONSTRAINT gateway_credentials_kind_check CHECK (kind IN ('api', 'notify')),
  secret_hash text CONSTRAINT gateway_credentials_secret_hash_key UNIQUE,
  status text NOT NULL CONSTRAINT gateway_credentials_status_check CHECK (status IN ('current', 'previous', 'revoked')),
  created_at timestamptz NOT NULL,
  revoked_at timestamptz,
  CONSTRAINT gateway_credentials_hash_check CHECK ((kind = 'api') = (secret_hash IS NOT NULL)),
  CONSTRAINT gateway_credentials_revoked_check CHECK ((status = 'revoked') = (revoked_at IS NOT NULL))
);

CREATE UNIQUE INDEX gateway_credentials_one_current ON gateway_credentials (merchant_id, kind) WHERE status = 'current';
CREATE UNIQUE INDEX gateway_credentials_one_previous ON gateway_credentials (merchant_id, kind) WHERE status = 'previous';
