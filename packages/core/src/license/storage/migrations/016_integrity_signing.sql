-- Integrity signing (docs/decisions.md "License: integrity signing"): the Ed25519 keys the server signs
-- build manifests with, per product. The private half is kept only sealed (XChaCha20-Poly1305 under a
-- subkey of LICENSE_MASTER_KEY, bound to vendor, product and fingerprint); the public half is what a
-- build embeds and what GET /v1/admin/integrity/keys lists.

CREATE TABLE license_integrity_signer_keys (
  -- SHA-256("tollgate/integrity-signer-key/v1" || 0x00 || public_key), lower-case hex.
  fingerprint text PRIMARY KEY CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  product_id text NOT NULL REFERENCES license_products (product_id),
  public_key bytea NOT NULL CHECK (octet_length(public_key) = 32),
  -- version (1) || nonce (24) || ciphertext (32) || tag (16)
  sealed_seed bytea NOT NULL CHECK (octet_length(sealed_seed) = 73),
  label text NOT NULL CHECK (char_length(label) <= 128),
  -- registered -> revoked, never back.
  status text NOT NULL CHECK (status IN ('registered', 'revoked')),
  created_at timestamptz NOT NULL,
  revoked_at timestamptz,
  CHECK ((status = 'revoked') = (revoked_at IS NOT NULL))
);
CREATE INDEX license_integrity_signer_keys_vendor ON license_integrity_signer_keys (vendor_id, created_at, fingerprint);
CREATE INDEX license_integrity_signer_keys_product ON license_integrity_signer_keys (product_id, created_at, fingerprint);
