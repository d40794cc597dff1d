-- Epoch administration (docs/decisions.md "License: epoch administration"): carry-over certificates that
-- keep a retired root's epochs verifiable under a current pin, and the two-actor approvals of epoch
-- revocation.

-- 1. Carry-over certificates. At a root rotation the new root certifies the epochs the old root
--    certified (same epoch id, key, window and scope; `root_key_digest` of the new root). The primary
--    certificate stays in `license_epochs.certificate`; these rows add one certificate per (epoch, other
--    root). The keyset lists, per epoch, the most recently added certificate that verifies against the
--    server's pins (keyset-store.ts), so the epoch stays listed after the old root leaves
--    LICENSE_ROOT_PUBLIC_KEYS, and a client replaying the revocation feed from since=0 still verifies
--    the batches it signed.
CREATE TABLE license_epoch_certificates (
  epoch_id bytea NOT NULL REFERENCES license_epochs (epoch_id),
  root_key_id bytea NOT NULL CHECK (octet_length(root_key_id) = 8),
  certificate bytea NOT NULL CHECK (octet_length(certificate) BETWEEN 1 AND 65536),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (epoch_id, root_key_id)
);

-- Carry-over certificates are evidence clients verify against: never changed, never removed.
CREATE FUNCTION license_refuse_epoch_certificate_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'carry-over epoch certificates never change' USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER license_epoch_certificates_immutable
  BEFORE UPDATE OR DELETE ON license_epoch_certificates
  FOR EACH ROW EXECUTE FUNCTION license_refuse_epoch_certificate_change();

-- Every instance rebuilds its keyset when a carry-over certificate arrives (trust-change-listener.ts).
CREATE FUNCTION license_notify_epoch_certificate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tollgate_license_trust', 'epoch:' || encode(NEW.epoch_id, 'hex') || ':carried-over');
  RETURN NULL;
END;
$$;

CREATE TRIGGER license_epoch_certificates_notify
  AFTER INSERT ON license_epoch_certificates
  FOR EACH ROW EXECUTE FUNCTION license_notify_epoch_certificate();

-- 2. Two-actor approvals of `POST /v1/admin/epochs/{id}/revoke`. The first confirmation opens an
--    approval (`pending`, until `expires_at`); a confirmation by another Admin token of the same vendor
--    before `expires_at` executes the revocation (`executed`, with the batch's seq); a confirmation after
--    it marks the approval `expired` and opens a new one. At most one pending approval per epoch.
--    Actors are Admin token ids (license_admin_tokens.token_id).
CREATE TABLE license_epoch_revocation_approvals (
  approval_id text PRIMARY KEY CHECK (approval_id ~ '^[0-9a-f]{32}$'),
  epoch_id bytea NOT NULL REFERENCES license_epochs (epoch_id),
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  requested_by text NOT NULL CHECK (requested_by ~ '^[0-9a-f]{32}$'),
  requested_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL CHECK (expires_at > requested_at),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'executed', 'expired')),
  approved_by text CHECK (approved_by ~ '^[0-9a-f]{32}$'),
  executed_at timestamptz,
  revocation_seq bigint,
  CHECK ((status = 'executed') = (approved_by IS NOT NULL AND executed_at IS NOT NULL AND revocation_seq IS NOT NULL)),
  CHECK (approved_by IS NULL OR approved_by <> requested_by)
);

CREATE UNIQUE INDEX license_epoch_revocation_approvals_pending ON license_epoch_revocation_approvals (epoch_id) WHERE status = 'pending';
CREATE INDEX license_epoch_revocation_approvals_epoch ON license_epoch_revocation_approvals (epoch_id, requested_at DESC);

-- Machines are counted by product and recency for the dry run's `affected_machines_upper_bound`.
CREATE INDEX license_machines_active_seen ON license_machines (last_seen_at) WHERE status = 'active';
