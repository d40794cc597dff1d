-- 021_data_subject_requests (license spec "Data-subject requests"; docs/decisions.md "Data-subject
-- requests"). DSR export and delete find a subject's rows by its license or machine id; the tables that
-- name a license without an index on it get one here, so a request reads the subject's rows instead of
-- the whole table. Nothing else is stored: a request is journaled by the Admin idempotency journal and
-- audited like any Admin mutation, and the erasure itself leaves no tombstone (audit_tombstone: false).
CREATE INDEX license_suspicion_signals_license ON license_suspicion_signals (license_id) WHERE license_id IS NOT NULL;
CREATE INDEX license_billing_events_license ON license_billing_events (license_id) WHERE license_id IS NOT NULL;
