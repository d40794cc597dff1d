-- Analytics (license spec, "Telemetry block" rule 4; docs/decisions.md "License: analytics"): one detail
-- event per successful activation or check-in, kept 90 days; a daily job rolls them up into exact
-- counts and HyperLogLog sketches (and rolls raw T1 telemetry up the same way). Aggregate tables hold no
-- subject identifiers and are never touched by erasure cascades.

-- Events as the activation or check-in transaction writes them (a trigger below, so an event commits
-- exactly when its activation or check-in does). They still name the machine, so the analytics drain
-- moves them into `license_analytics_events` under HMAC pseudonyms within seconds; until then an
-- erasure of the machine takes them with it (ON DELETE CASCADE).
CREATE TABLE license_analytics_outbox (
  outbox_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  machine_id text NOT NULL REFERENCES license_machines (machine_id) ON DELETE CASCADE,
  license_id text NOT NULL,
  vendor_id text NOT NULL,
  product_id text NOT NULL,
  policy_id text NOT NULL,
  tier text,
  release_id text,
  app_version text,
  platform text,
  offline boolean NOT NULL,
  kind text NOT NULL CHECK (kind IN ('activation', 'check_in')),
  occurred_at timestamptz NOT NULL
);
CREATE INDEX license_analytics_outbox_machine ON license_analytics_outbox (machine_id);

-- The raw detail events, keyed by pseudonyms (HMAC-SHA-256 under the analytics subkey, hex): never a
-- machine or license id, a license key or an address. `event_id` is the outbox row's id, so a drain that
-- runs twice cannot duplicate an event. Purged 90 days after `occurred_at`.
CREATE TABLE license_analytics_events (
  event_id bigint PRIMARY KEY,
  vendor_id text NOT NULL,
  product_id text NOT NULL,
  policy_id text NOT NULL,
  tier text,
  release_id text,
  app_version text,
  platform text,
  offline boolean NOT NULL,
  kind text NOT NULL CHECK (kind IN ('activation', 'check_in')),
  occurred_at timestamptz NOT NULL,
  device_pseudonym text NOT NULL CHECK (device_pseudonym ~ '^[0-9a-f]{64}$'),
  license_pseudonym text NOT NULL CHECK (license_pseudonym ~ '^[0-9a-f]{64}$')
);
CREATE INDEX license_analytics_events_time ON license_analytics_events (occurred_at);
CREATE INDEX license_analytics_events_vendor ON license_analytics_events (vendor_id, event_id);
CREATE INDEX license_analytics_events_device ON license_analytics_events (device_pseudonym);
CREATE INDEX license_analytics_events_license ON license_analytics_events (license_pseudonym);

-- What the trigger records. Activation: a new machine row (a seat taken) or the re-activation of an
-- active machine, told apart from every other update by naming `device_kem_key` (only activation sets
-- it). Check-in: an update naming `last_validated_at` (only the validate contact sets it, and only on an
-- active machine for a fresh, authenticated request). The tier is the license's own, else its policy's.
-- The validate contact writes `last_validated_at` before it judges the license, so a check-in is recorded
-- only when the license is usable at that instant, as `licenseStanding` judges it: not suspended or
-- revoked, and not expired (expiry_behavior `deny`: before expires_at; `grace`: before expires_at plus
-- validation_grace_seconds; `fallback`: always usable). Reading the license row here keeps the validate
-- hot path at one write. Still approximate: a validate answered with a kill order for a revoked release
-- (kill 7) or refused for its build or version scope is recorded (docs/decisions.md "analytics check-ins").
CREATE FUNCTION license_analytics_record_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  happened timestamptz := CASE WHEN TG_ARGV[0] = 'check_in' THEN COALESCE(NEW.last_validated_at, NEW.last_seen_at) ELSE NEW.last_seen_at END;
BEGIN
  INSERT INTO license_analytics_outbox (machine_id, license_id, vendor_id, product_id, policy_id, tier, release_id, app_version, platform, offline, kind, occurred_at)
  SELECT NEW.machine_id, l.license_id, l.vendor_id, l.product_id, l.policy_id, COALESCE(l.tier, p.document ->> 'tier'), NEW.release_id, NEW.app_version,
    NEW.platform, NEW.offline, TG_ARGV[0], happened
  FROM license_licenses l JOIN license_policies p ON p.policy_id = l.policy_id
  WHERE l.license_id = NEW.license_id
    AND (TG_ARGV[0] <> 'check_in' OR (
      l.status = 'active' AND (
        l.expires_at IS NULL OR p.document ->> 'expiry_behavior' = 'fallback'
        OR happened < l.expires_at + CASE WHEN p.document ->> 'expiry_behavior' = 'grace'
          THEN make_interval(secs => COALESCE((p.document ->> 'validation_grace_seconds')::double precision, 0)) ELSE interval '0' END)));
  RETURN NULL;
END;
$$;
CREATE TRIGGER license_analytics_activation AFTER INSERT ON license_machines
  FOR EACH ROW WHEN (NEW.status = 'active') EXECUTE FUNCTION license_analytics_record_event('activation');
CREATE TRIGGER license_analytics_reactivation AFTER UPDATE OF device_kem_key ON license_machines
  FOR EACH ROW WHEN (NEW.status = 'active') EXECUTE FUNCTION license_analytics_record_event('activation');
CREATE TRIGGER license_analytics_check_in AFTER UPDATE OF last_validated_at ON license_machines
  FOR EACH ROW WHEN (NEW.status = 'active' AND NEW.last_validated_at IS NOT NULL) EXECUTE FUNCTION license_analytics_record_event('check_in');

-- Exact daily counts by dimension. '' stands for "none" (a machine with no known release), so the
-- primary key can hold every row; the API answers null for it. `platform` is from the closed list of
-- analytics-platform.ts. `devices` is the estimated number of distinct devices behind the row's own kind
-- (its sketch's estimate): the cell's k-anonymity count.
CREATE TABLE license_analytics_daily (
  day date NOT NULL,
  vendor_id text NOT NULL,
  product_id text NOT NULL,
  policy_id text NOT NULL,
  tier text NOT NULL,
  release_id text NOT NULL,
  platform text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('activation', 'check_in')),
  events bigint NOT NULL CHECK (events > 0),
  devices integer NOT NULL DEFAULT 0 CHECK (devices >= 0),
  PRIMARY KEY (vendor_id, day, product_id, policy_id, tier, release_id, platform, kind)
);

-- HyperLogLog sketches (hll.ts: p = 14, 6-bit registers) of the distinct devices and licenses seen per
-- day, dimension and event kind (per kind, so `activations` and `check_ins` are suppressed by the devices
-- behind their own kind); merged register by register for weeks, months, kinds and coarser groupings.
CREATE TABLE license_analytics_sketches (
  day date NOT NULL,
  vendor_id text NOT NULL,
  product_id text NOT NULL,
  policy_id text NOT NULL,
  tier text NOT NULL,
  release_id text NOT NULL,
  platform text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('activation', 'check_in')),
  devices bytea NOT NULL,
  licenses bytea NOT NULL,
  PRIMARY KEY (vendor_id, day, product_id, policy_id, tier, release_id, platform, kind)
);

-- T1 rollups of raw telemetry (license_telemetry_raw): per day and product, a measure (`blocks`,
-- `sessions`, `days_active`, `session_duration` by bucket, `feature_hits` by feature id) and the exact
-- number of distinct devices behind it that day (what k-anonymity suppression reads). The telemetry
-- purge (`before=`) deletes rows of days before its date.
CREATE TABLE license_analytics_t1_daily (
  day date NOT NULL,
  vendor_id text NOT NULL,
  product_id text NOT NULL,
  measure text NOT NULL CHECK (measure IN ('blocks', 'sessions', 'days_active', 'session_duration', 'feature_hits')),
  key text NOT NULL,
  value bigint NOT NULL CHECK (value >= 0),
  devices integer NOT NULL CHECK (devices > 0),
  PRIMARY KEY (vendor_id, day, product_id, measure, key)
);
CREATE TABLE license_analytics_t1_sketches (
  day date NOT NULL,
  vendor_id text NOT NULL,
  product_id text NOT NULL,
  devices bytea NOT NULL,
  PRIMARY KEY (vendor_id, day, product_id)
);
CREATE INDEX license_analytics_t1_daily_day ON license_analytics_t1_daily (day);
CREATE INDEX license_analytics_t1_sketches_day ON license_analytics_t1_sketches (day);

-- Days the rollup attempted. `complete`: rolled up (`runs` counts how often: the scheduled job rolls each
-- day once, whatever the number of instances). `failed`: the last attempt threw; the job logs it, goes on
-- with later days and retries this one at `next_attempt_at` (backoff doubling from 1 h to 24 h) while it
-- is inside the catch-up window. An operator retries at once by setting `next_attempt_at` to now.
CREATE TABLE license_analytics_rollup_days (
  day date PRIMARY KEY,
  status text NOT NULL DEFAULT 'complete' CHECK (status IN ('complete', 'failed')),
  events bigint NOT NULL,
  t1_blocks bigint NOT NULL,
  runs integer NOT NULL DEFAULT 1,
  completed_at timestamptz,
  failures integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  last_error text,
  CHECK ((status = 'complete') = (completed_at IS NOT NULL))
);
