-- 004_audit: the Admin API's audit log, one hash chain per vendor (license/admin/audit/audit-chain.ts
-- defines the hash), its per-vendor head, and the signed anchors of that head.

-- One row per audited mutation, written in the mutation's own transaction. `summary` is the canonical
-- JSON text (RFC 8785) of the redacted summary, kept as text so the hashed bytes are exactly the stored
-- bytes (jsonb would re-spell numbers and refuse \u0000). `hash` = SHA-256 over the length-prefixed
-- encoding of every other column; `prev_hash` is the hash of `seq - 1` (32 zero bytes for seq 1).
CREATE TABLE license_audit_events (
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  seq bigint NOT NULL CHECK (seq >= 1),
  actor text NOT NULL CHECK (char_length(actor) BETWEEN 1 AND 128),
  action text NOT NULL CHECK (char_length(action) BETWEEN 1 AND 64),
  target_type text NOT NULL CHECK (char_length(target_type) BETWEEN 1 AND 40),
  target_id text NOT NULL CHECK (char_length(target_id) BETWEEN 1 AND 128),
  summary text NOT NULL,
  at timestamptz NOT NULL,
  prev_hash bytea NOT NULL CHECK (octet_length(prev_hash) = 32),
  hash bytea NOT NULL CHECK (octet_length(hash) = 32),
  PRIMARY KEY (vendor_id, seq)
);

-- GET /v1/admin/audit?target_type=&target_id= lists one target's events newest first.
CREATE INDEX license_audit_events_target ON license_audit_events (vendor_id, target_type, target_id, seq);

-- The last event of each vendor's chain (seq 0 and 32 zero bytes before the first). Every append takes
-- this row's lock with an upsert for the rest of its transaction, so concurrent writers of one vendor
-- queue and the chain never forks.
CREATE TABLE license_audit_heads (
  vendor_id text PRIMARY KEY REFERENCES license_vendors (vendor_id),
  seq bigint NOT NULL CHECK (seq >= 0),
  hash bytea NOT NULL CHECK (octet_length(hash) = 32)
);

-- Signed anchors: the head at `seq`, signed by a global epoch as an `audit-anchor` artifact and served
-- publicly, so a third party holding the pinned root can prove the first `seq` events were not
-- rewritten after `anchored_at`. At most one anchor per head position.
CREATE TABLE license_audit_anchors (
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  seq bigint NOT NULL CHECK (seq >= 1),
  head bytea NOT NULL CHECK (octet_length(head) = 32),
  envelope bytea NOT NULL,
  anchored_at timestamptz NOT NULL,
  PRIMARY KEY (vendor_id, seq)
);

-- Defence in depth next to the hashes: events and anchors are never updated or deleted through SQL
-- the service runs, and a head only moves forward by one (or is re-locked unchanged). Audit retention,
-- when it comes, relaxes the delete rule in its own migration. TRUNCATE is not refused: test databases
-- are emptied with it, and a truncated chain fails verification against any published anchor.
CREATE FUNCTION license_refuse_audit_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit events and anchors never change' USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER license_audit_events_immutable
  BEFORE UPDATE OR DELETE ON license_audit_events
  FOR EACH ROW EXECUTE FUNCTION license_refuse_audit_change();

CREATE TRIGGER license_audit_anchors_immutable
  BEFORE UPDATE OR DELETE ON license_audit_anchors
  FOR EACH ROW EXECUTE FUNCTION license_refuse_audit_change();

CREATE TRIGGER license_audit_heads_no_delete
  BEFORE DELETE ON license_audit_heads
  FOR EACH ROW EXECUTE FUNCTION license_refuse_audit_change();

CREATE TRIGGER license_audit_heads_forward_only
  BEFORE UPDATE ON license_audit_heads
  FOR EACH ROW WHEN (
    NEW.vendor_id <> OLD.vendor_id
    OR NOT ((NEW.seq = OLD.seq AND NEW.hash = OLD.hash) OR NEW.seq = OLD.seq + 1)
  )
  EXECUTE FUNCTION license_refuse_audit_change();
