-- 015_asset_keys: one 32-byte asset key (KEK) per (release, feature), sealed at rest under the master
-- key's subkey `tollgate/license/asset-key-seal/v1` (docs/decisions.md "License: asset keys").
-- `sealed_key` is version 1 ‖ nonce ‖ XChaCha20-Poly1305 ciphertext ‖ tag, with the release and feature
-- bound as associated data (a sealed key copied to another row does not open). `fingerprint` (32 hex)
-- names the key in lists and wraps; the key itself is never stored in clear.
CREATE TABLE license_asset_keks (
  -- The row's own id: the keyset cursor of Admin lists breaks ties of created_at with it.
  kek_id text NOT NULL UNIQUE CHECK (kek_id ~ '^[0-9a-f]{32}$'),
  release_id text NOT NULL REFERENCES license_releases (release_id),
  feature_id text NOT NULL CHECK (feature_id ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  product_id text NOT NULL REFERENCES license_products (product_id),
  fingerprint text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{32}$'),
  sealed_key bytea NOT NULL CHECK (octet_length(sealed_key) = 73),
  source text NOT NULL CHECK (source IN ('generated', 'uploaded')),
  created_at timestamptz NOT NULL,
  -- Validation reads the keys of one release for the device's features: the primary key serves it.
  PRIMARY KEY (release_id, feature_id)
);
-- Admin lists: a vendor's keys oldest first, optionally of one product or release.
CREATE INDEX license_asset_keks_vendor ON license_asset_keks (vendor_id, created_at, kek_id);
CREATE INDEX license_asset_keks_product ON license_asset_keks (product_id, created_at, kek_id);

-- Every instance caches which keys a release has (validation must not read them on every request):
-- a change is announced on the release channel with the product id, as release changes are, so the
-- caches of every instance drop that product's entries at commit.
CREATE FUNCTION license_asset_keks_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tollgate_license_releases', COALESCE(NEW.product_id, OLD.product_id));
  RETURN NULL;
END;
$$;
CREATE TRIGGER license_asset_keks_notify_change AFTER INSERT OR UPDATE OR DELETE ON license_asset_keks
  FOR EACH ROW EXECUTE FUNCTION license_asset_keks_notify_change();
