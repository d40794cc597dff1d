-- The revocation feed is append-only (docs/protocol.md §11), but 001's row triggers do not fire on
-- TRUNCATE: these statement triggers refuse it, for the published batches and for the head (emptying the
-- head would restart sequence numbers at 1, which the published batches already hold).
CREATE TRIGGER license_revocation_batches_no_truncate
  BEFORE TRUNCATE ON license_revocation_batches
  FOR EACH STATEMENT EXECUTE FUNCTION license_refuse_batch_change();

CREATE FUNCTION license_refuse_head_rewind() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the revocation feed head only moves forward by one' USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER license_revocation_head_no_truncate
  BEFORE TRUNCATE ON license_revocation_head
  FOR EACH STATEMENT EXECUTE FUNCTION license_refuse_head_rewind();

CREATE TRIGGER license_revocation_head_no_delete
  BEFORE DELETE ON license_revocation_head
  FOR EACH ROW EXECUTE FUNCTION license_refuse_head_rewind();

-- Publishers bump the head with `seq = head.seq + 1`; nothing else may change it.
CREATE TRIGGER license_revocation_head_forward_only
  BEFORE UPDATE ON license_revocation_head
  FOR EACH ROW WHEN (NEW.seq <> OLD.seq + 1 OR NEW.singleton IS DISTINCT FROM OLD.singleton)
  EXECUTE FUNCTION license_refuse_head_rewind();
