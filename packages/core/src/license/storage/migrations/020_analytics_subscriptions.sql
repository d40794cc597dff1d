-- 020_analytics_subscriptions: metric subscriptions and their durable, at-least-once deliveries.
-- A subscription's periods are materialised as delivery rows in the same transaction that advances its
-- cursor (next_period_start), so a crash can neither lose nor skip a period; a delivery row is claimed
-- with FOR UPDATE SKIP LOCKED and a lease (next_attempt_at), so one instance works on it at a time.

CREATE TABLE license_analytics_subscriptions (
  subscription_id text PRIMARY KEY CHECK (subscription_id ~ '^[0-9a-f]{32}$'),
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  description text CHECK (char_length(description) <= 200),
  metric_ids jsonb NOT NULL,
  granularity text NOT NULL,
  group_by jsonb NOT NULL,
  schedule text NOT NULL CHECK (schedule IN ('daily', 'weekly', 'monthly')),
  url text NOT NULL CHECK (char_length(url) <= 2048),
  signing_key_id text NOT NULL,
  -- XChaCha20-Poly1305 under the analytics-subscription-seal subkey (the server signs with it).
  sealed_secret bytea NOT NULL,
  active boolean NOT NULL DEFAULT true,
  -- Start of the first period not yet materialised, and when that period's delivery falls due.
  next_period_start timestamptz NOT NULL,
  next_due_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  disabled_at timestamptz,
  last_attempt_at timestamptz,
  last_success_at timestamptz,
  last_error_class text,
  last_http_status integer,
  consecutive_failures integer NOT NULL DEFAULT 0
);

CREATE INDEX license_analytics_subscriptions_vendor ON license_analytics_subscriptions (vendor_id, created_at DESC, subscription_id DESC);
CREATE INDEX license_analytics_subscriptions_due ON license_analytics_subscriptions (next_due_at) WHERE active;

CREATE TABLE license_analytics_deliveries (
  delivery_id text PRIMARY KEY,
  subscription_id text NOT NULL REFERENCES license_analytics_subscriptions (subscription_id) ON DELETE CASCADE,
  period_start timestamptz NOT NULL,
  period_end timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
  attempts integer NOT NULL DEFAULT 0,
  -- Pending: when it may be claimed next (a claim moves it to the end of the claim's lease).
  next_attempt_at timestamptz NOT NULL,
  -- The exact bytes every attempt sends, frozen by the first attempt that computed them.
  body text,
  last_error_class text,
  last_http_status integer,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (subscription_id, period_start)
);

CREATE INDEX license_analytics_deliveries_due ON license_analytics_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX license_analytics_deliveries_finished ON license_analytics_deliveries (updated_at) WHERE status <> 'pending';
