-- License trust chain (docs/protocol.md): signing epochs with their sealed private keys, and the
-- append-only revocation feed.

-- One row per signing epoch. The private key is sealed with XChaCha20-Poly1305 under LICENSE_MASTER_KEY
-- (epoch-key-seal.ts). `pending`: created by `epoch create`, waiting for the root's certificate;
-- `active`: certificate loaded, published in the keyset; `revoked`: withdrawn.
CREATE TABLE license_epochs (
  epoch_id bytea PRIMARY KEY CHECK (octet_length(epoch_id) = 8),
  public_key bytea NOT NULL UNIQUE CHECK (octet_length(public_key) = 32),
  sealed_private_key bytea NOT NULL CHECK (octet_length(sealed_private_key) = 72),
  product_scope text,
  not_before bigint NOT NULL,
  not_after bigint NOT NULL CHECK (not_after > not_before),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'active', 'revoked')),
  certificate bytea,
  created_at timestamptz NOT NULL,
  activated_at timestamptz,
  revoked_at timestamptz,
  CHECK (status = 'pending' OR certificate IS NOT NULL)
);

CREATE INDEX license_epochs_active ON license_epochs (not_after) WHERE status = 'active';

-- Published revocation batches: `seq` is the revocation epoch the batch leads to; `envelope` holds the
-- signed COSE_Sign1 bytes served verbatim by GET /v1/revocations.
CREATE TABLE license_revocation_batches (
  seq bigint PRIMARY KEY CHECK (seq >= 1),
  envelope bytea NOT NULL,
  published_at timestamptz NOT NULL
);

-- Published batches never change: responses for them are cached as immutable.
CREATE FUNCTION license_refuse_batch_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'published revocation batches never change' USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER license_revocation_batches_immutable
  BEFORE UPDATE OR DELETE ON license_revocation_batches
  FOR EACH ROW EXECUTE FUNCTION license_refuse_batch_change();

-- The single-row head of the feed. Publishers bump it with one upsert, whose row lock serialises them:
-- sequence numbers never fork and never skip. No row means 0.
CREATE TABLE license_revocation_head (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  seq bigint NOT NULL CHECK (seq >= 1)
);
