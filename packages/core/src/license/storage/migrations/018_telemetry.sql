-- 018_telemetry (license spec "Telemetry block" rules 1–5; docs/decisions.md "License: telemetry").
--
-- Raw T1 blocks are keyed by a pseudonym instead of the machine id: `subject` is an HMAC of the machine
-- id under a subkey of LICENSE_MASTER_KEY (telemetry-pseudonym.ts). The server recomputes it from a
-- machine id to export or erase that machine's rows (DSR); a database dump alone names no machine.
-- 010's table (machine_id in plain, block as CBOR, no reader yet) is replaced, not migrated: its rows
-- cannot be pseudonymized in SQL (the key is not in the database), and they are raw telemetry with a
-- 30-day life that nothing had read.
DROP TABLE license_telemetry_raw;

-- One row per stored block (both gates passed, fields clipped to the caps). Columns, not the CBOR block,
-- so the T1 rollups are plain SQL aggregates. No IP address, machine id or license id.
-- Every number is bounded (the intake clips to the caps first; the CHECKs are the backstop): the daily
-- rollup sums them per product, and an unbounded value could overflow that sum and stop the job.
CREATE TABLE license_telemetry_raw (
  telemetry_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  product_id text NOT NULL REFERENCES license_products (product_id),
  subject text NOT NULL CHECK (subject ~ '^[0-9a-f]{64}$'),
  consent_version bigint NOT NULL CHECK (consent_version >= 1),
  window_start bigint NOT NULL CHECK (window_start >= 0),
  session_count integer NOT NULL CHECK (session_count BETWEEN 0 AND 10000),
  duration_under_5m integer NOT NULL CHECK (duration_under_5m BETWEEN 0 AND 10000),
  duration_under_30m integer NOT NULL CHECK (duration_under_30m BETWEEN 0 AND 10000),
  duration_under_2h integer NOT NULL CHECK (duration_under_2h BETWEEN 0 AND 10000),
  duration_2h_plus integer NOT NULL CHECK (duration_2h_plus BETWEEN 0 AND 10000),
  -- { feature id: hits }: at most 64 ids of at most 128 characters, hits at most 10,000 (clipped).
  feature_hits jsonb NOT NULL CHECK (jsonb_typeof(feature_hits) = 'object'),
  days_active smallint NOT NULL CHECK (days_active BETWEEN 0 AND 28),
  -- The histogram never reports more sessions than the block (the intake scales it down).
  CHECK (duration_under_5m + duration_under_30m + duration_under_2h + duration_2h_plus <= session_count),
  -- Hits are numbers in 0..10,000 (ids are allow-listed catalog feature ids, checked by the intake).
  CHECK (NOT jsonb_path_exists(feature_hits, '$.* ? (@.type() != "number" || @ < 0 || @ > 10000)')),
  -- Midnight UTC of the day the block arrived (the intake truncates): no time of day that a dump could
  -- join to license_machines.last_validated_at or to an event's time to name the machine.
  received_at timestamptz NOT NULL
);
-- At most one block per machine (subject) and UTC day: window_start is client-echoed, so it cannot be
-- the key; a second block of the day is dropped by ON CONFLICT DO NOTHING (counter t1.duplicate_window).
-- One device thus weighs at most one block in a day's rollup, and a machine adds at most 30 rows.
CREATE UNIQUE INDEX license_telemetry_raw_subject_day ON license_telemetry_raw (subject, ((received_at AT TIME ZONE 'UTC')::date));
CREATE INDEX license_telemetry_raw_received ON license_telemetry_raw (received_at);
CREATE INDEX license_telemetry_raw_vendor_received ON license_telemetry_raw (vendor_id, received_at);

-- Operational counters (t1.stored, t1.no_consent, t1.tier_gate, t1.duplicate_window and the clip anomalies) per product and
-- UTC day. Incremented by the same statement that stores (or drops) the block, with ON CONFLICT DO
-- UPDATE: durable and never a lost update across instances. Each increment picks one of 8 shards, so
-- concurrent validates of one product rarely wait on the same row lock; readers sum the shards.
CREATE TABLE license_telemetry_counters (
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  product_id text NOT NULL REFERENCES license_products (product_id),
  counter text NOT NULL CHECK (counter ~ '^[a-z0-9_.]{1,64}$'),
  day date NOT NULL,
  shard smallint NOT NULL CHECK (shard BETWEEN 0 AND 7),
  count bigint NOT NULL CHECK (count >= 0),
  PRIMARY KEY (vendor_id, product_id, counter, day, shard)
);
CREATE INDEX license_telemetry_counters_vendor_day ON license_telemetry_counters (vendor_id, day);
