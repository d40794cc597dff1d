-- 017_billing_webhooks: inbound billing events (docs/decisions.md "Billing webhooks").
--
-- One row per (provider, event_id), inserted when a verified webhook is accepted and before anything
-- else happens: the primary key is the dedupe, so a redelivery finds the row and changes nothing. The
-- row holds the event as normalised at the door (ids, status, dates, the tollgate_* metadata), never the
-- provider's raw body, which carries customer details the service does not need.
CREATE TABLE license_billing_events (
  provider text NOT NULL CHECK (provider IN ('stripe', 'paddle', 'lemonsqueezy')),
  event_id text NOT NULL CHECK (char_length(event_id) BETWEEN 1 AND 200),
  event_type text NOT NULL CHECK (char_length(event_type) BETWEEN 1 AND 100),
  event jsonb NOT NULL CHECK (jsonb_typeof(event) = 'object'),
  -- pending: waiting for (another) attempt; processed: applied (see outcome); dead: gave up after the
  -- last attempt (an operator can set it back to pending).
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processed', 'dead')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  processed_at timestamptz,
  outcome text CHECK (outcome IS NULL OR char_length(outcome) BETWEEN 1 AND 64),
  license_id text CHECK (license_id IS NULL OR license_id ~ '^[0-9a-f]{32}$'),
  last_error text CHECK (last_error IS NULL OR char_length(last_error) <= 500),
  PRIMARY KEY (provider, event_id),
  CHECK ((status = 'processed') = (processed_at IS NOT NULL))
);
-- The worker's claim: the oldest due pending row first.
CREATE INDEX license_billing_events_due ON license_billing_events (next_attempt_at) WHERE status = 'pending';
-- Retention: processed rows older than BILLING_EVENT_RETENTION_DAYS are deleted oldest first.
CREATE INDEX license_billing_events_processed ON license_billing_events (processed_at) WHERE status = 'processed';

-- The provider time of the newest event applied to a subscription: an older event arriving late never
-- overwrites what a newer one set.
ALTER TABLE license_subscriptions
  ADD COLUMN last_event_at timestamptz,
  ADD COLUMN last_event_id text CHECK (last_event_id IS NULL OR char_length(last_event_id) BETWEEN 1 AND 200);

-- Payments (Stripe charges and payment intents) seen on paid invoices, and Lemon Squeezy orders
-- (`order:<id>`) seen on subscription events, with the subscription they paid, so a refund or dispute
-- naming only the payment finds its license (never the refund's own metadata, which a buyer may set).
-- Kept with no expiry: a refund or dispute may come months later, and the rows are small. Keyed by the provider's
-- subscription id, not a license: an invoice may arrive before the subscription's own first event.
CREATE TABLE license_billing_payments (
  provider text NOT NULL CHECK (provider IN ('stripe', 'paddle', 'lemonsqueezy')),
  payment_ref text NOT NULL CHECK (char_length(payment_ref) BETWEEN 1 AND 200),
  subscription_id text NOT NULL CHECK (char_length(subscription_id) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (provider, payment_ref)
);
