-- Trust chain hardening (docs/decisions.md "License: trust chain hardening"): revocation batches are
-- dated forward only, epoch private keys are wiped once they can never sign again, sealed keys carry a
-- format version, and every instance hears of epoch and feed changes at once (LISTEN/NOTIFY).

-- 1. The feed head remembers the `issued_at` of the latest batch. Publishers date the next batch
--    GREATEST(head.issued_at, their clock) in the same upsert that bumps `seq` (revocation-store.ts), so
--    `issued_at` never goes backwards along the feed, whatever the instances' clocks say; clients refuse
--    a batch dated before the one they applied last. Existing heads take the publish time of their batch
--    (issued_at and published_at were read from one clock in one transaction).
DROP TRIGGER license_revocation_head_forward_only ON license_revocation_head;

ALTER TABLE license_revocation_head ADD COLUMN issued_at bigint;

UPDATE license_revocation_head AS head
   SET issued_at = floor(extract(epoch FROM batch.published_at))::bigint
  FROM license_revocation_batches AS batch
 WHERE batch.seq = head.seq;

UPDATE license_revocation_head SET issued_at = 0 WHERE issued_at IS NULL;

ALTER TABLE license_revocation_head
  ALTER COLUMN issued_at SET NOT NULL,
  ADD CONSTRAINT license_revocation_head_issued_at_check CHECK (issued_at >= 0);

-- Publishers bump the head with `seq = head.seq + 1` and an `issued_at` no lower than before; nothing
-- else may change it.
CREATE TRIGGER license_revocation_head_forward_only
  BEFORE UPDATE ON license_revocation_head
  FOR EACH ROW WHEN (NEW.seq <> OLD.seq + 1 OR NEW.singleton IS DISTINCT FROM OLD.singleton OR NEW.issued_at < OLD.issued_at)
  EXECUTE FUNCTION license_refuse_head_rewind();

-- 2. Sealed epoch keys: the legacy 72-byte form (nonce ‖ ciphertext ‖ tag under the raw master key)
--    or the versioned 73-byte form (0x01 ‖ nonce ‖ ciphertext ‖ tag under the HKDF subkey
--    `tollgate/license/epoch-key-seal/v1`, epoch-key-seal.ts), or NULL once wiped. Legacy blobs are
--    re-sealed in the versioned form the first time an instance opens them (epoch-store.ts).
ALTER TABLE license_epochs DROP CONSTRAINT license_epochs_sealed_private_key_check;
ALTER TABLE license_epochs ALTER COLUMN sealed_private_key DROP NOT NULL;
ALTER TABLE license_epochs ADD COLUMN key_wiped_at timestamptz;

-- Revoked epochs never sign again: their keys go now (the trigger below keeps it so).
UPDATE license_epochs SET sealed_private_key = NULL, key_wiped_at = COALESCE(revoked_at, now()) WHERE status = 'revoked';

ALTER TABLE license_epochs
  ADD CONSTRAINT license_epochs_sealed_key_format CHECK (
    sealed_private_key IS NULL
    OR octet_length(sealed_private_key) = 72
    OR (octet_length(sealed_private_key) = 73 AND get_byte(sealed_private_key, 0) = 1)
  ),
  ADD CONSTRAINT license_epochs_key_wiped_when_null CHECK ((sealed_private_key IS NULL) = (key_wiped_at IS NOT NULL)),
  ADD CONSTRAINT license_epochs_revoked_without_key CHECK (status <> 'revoked' OR sealed_private_key IS NULL);

-- 3. Wiping. A row that becomes (or is inserted as) revoked loses its key in the same statement, so the
--    revoking transaction commits the wipe with the revocation. Expired epochs are wiped by
--    `wipeRetiredEpochKeys` (run on every keyset rebuild). A wiped key is never put back, and a revoked
--    epoch never becomes anything else.
CREATE FUNCTION license_wipe_revoked_epoch_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.sealed_private_key := NULL;
  NEW.key_wiped_at := COALESCE(NEW.revoked_at, now());
  RETURN NEW;
END;
$$;

CREATE TRIGGER license_epochs_wipe_on_revoke
  BEFORE INSERT OR UPDATE ON license_epochs
  FOR EACH ROW WHEN (NEW.status = 'revoked' AND NEW.sealed_private_key IS NOT NULL)
  EXECUTE FUNCTION license_wipe_revoked_epoch_key();

CREATE FUNCTION license_refuse_epoch_resurrection() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'a revoked epoch stays revoked and a wiped epoch key is never restored' USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER license_epochs_no_resurrection
  BEFORE UPDATE ON license_epochs
  FOR EACH ROW WHEN ((OLD.status = 'revoked' AND NEW.status <> 'revoked') OR (OLD.sealed_private_key IS NULL AND NEW.sealed_private_key IS NOT NULL))
  EXECUTE FUNCTION license_refuse_epoch_resurrection();

-- 4. Change notices on channel `tollgate_license_trust`, delivered at commit: `epoch:<hex id>:<status>`
--    when an epoch is created or changes status, `feed:<seq>` when a batch is published. Every instance
--    listening (license-server trust/trust-change-listener.ts) drops a revoked epoch from its signers and rebuilds its
--    keyset at once instead of at its next periodic refresh.
CREATE FUNCTION license_notify_trust_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'license_epochs' THEN
    PERFORM pg_notify('tollgate_license_trust', 'epoch:' || encode(NEW.epoch_id, 'hex') || ':' || NEW.status);
  ELSE
    PERFORM pg_notify('tollgate_license_trust', 'feed:' || NEW.seq::text);
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER license_epochs_notify_insert
  AFTER INSERT ON license_epochs
  FOR EACH ROW EXECUTE FUNCTION license_notify_trust_change();

CREATE TRIGGER license_epochs_notify_status
  AFTER UPDATE ON license_epochs
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION license_notify_trust_change();

CREATE TRIGGER license_revocation_head_notify
  AFTER INSERT OR UPDATE ON license_revocation_head
  FOR EACH ROW EXECUTE FUNCTION license_notify_trust_change();
