-- Suspicion signals the client protocol records, and the alerts they raised (docs/decisions.md
-- "Suspicion alerts"). Only signals inside the scoring window count; older rows are purged.
CREATE TABLE license_suspicion_signals (
  signal_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  product_id text NOT NULL REFERENCES license_products (product_id),
  -- The license the signal is about, when there is one (a forged proof names none it could prove).
  license_id text CHECK (license_id IS NULL OR license_id ~ '^[0-9a-f]{32}$'),
  kind text NOT NULL CHECK (kind IN ('fingerprint_churn', 'proof_failure', 'nonce_replay', 'clock_rollback', 'offline_burst')),
  weight smallint NOT NULL CHECK (weight BETWEEN 1 AND 100),
  at timestamptz NOT NULL
);
CREATE INDEX license_suspicion_signals_product_at ON license_suspicion_signals (product_id, at DESC);

-- One row per product that ever alerted: the cool-down is a conditional update of this row, so of
-- concurrent signals crossing the threshold exactly one raises the alert.
CREATE TABLE license_suspicion_alerts (
  product_id text PRIMARY KEY REFERENCES license_products (product_id),
  alert_seq bigint NOT NULL CHECK (alert_seq >= 1),
  last_alert_at timestamptz NOT NULL
);
