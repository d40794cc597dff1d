-- Releases: the registry of builds each product ships, the product's security floor, and the release a
-- machine last reported (docs/decisions.md "License: releases").

-- One registered build of a product. A build fingerprint names one build, so it is unique per product.
-- `variant_id` is assigned by the server (a keyed hash of the product and the variant seed when one is
-- given, so builds of one seed share it; random otherwise); the seed itself is never stored.
-- `state` only moves forward: registered → deprecated → compromised (a registered release may be
-- compromised directly), and a compromise's action only escalates (warn → force_upgrade → revoke).
CREATE TABLE license_releases (
  release_id text PRIMARY KEY CHECK (release_id ~ '^[0-9a-f]{32}$'),
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  product_id text NOT NULL REFERENCES license_products (product_id),
  app_version text NOT NULL CHECK (char_length(app_version) BETWEEN 5 AND 64),
  channel text NOT NULL CHECK (channel ~ '^[a-z0-9][a-z0-9._-]{0,31}$'),
  build_fingerprint text NOT NULL CHECK (build_fingerprint ~ '^[0-9a-f]{64}$'),
  variant_id text NOT NULL CHECK (variant_id ~ '^[0-9a-f]{32}$'),
  has_variant_seed boolean NOT NULL,
  manifest_root text CHECK (manifest_root ~ '^[0-9a-f]{64}$'),
  module_digest text CHECK (module_digest ~ '^[0-9a-f]{64}$'),
  state text NOT NULL DEFAULT 'registered' CHECK (state IN ('registered', 'deprecated', 'compromised')),
  compromise_action text CHECK (compromise_action IN ('warn', 'force_upgrade', 'revoke')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deprecated_at timestamptz,
  compromised_at timestamptz,
  UNIQUE (product_id, build_fingerprint),
  CHECK ((state = 'compromised') = (compromise_action IS NOT NULL)),
  CHECK ((state = 'compromised') = (compromised_at IS NOT NULL)),
  CHECK (state <> 'deprecated' OR deprecated_at IS NOT NULL)
);
-- Admin lists: a vendor's releases newest first, optionally of one product (a product has one vendor).
CREATE INDEX license_releases_vendor ON license_releases (vendor_id, created_at DESC, release_id DESC);
CREATE INDEX license_releases_product ON license_releases (product_id, created_at DESC, release_id DESC);

-- The product's security floor: raised by one when a release is marked compromised with
-- bump_security_floor. Clients keep the highest floor they have seen and refuse artifacts carrying a
-- lower one, so the floor must never go down: the trigger refuses that, whatever the statement.
ALTER TABLE license_products ADD COLUMN security_floor integer NOT NULL DEFAULT 0 CHECK (security_floor >= 0);

CREATE FUNCTION license_security_floor_monotonic() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.security_floor < OLD.security_floor THEN
    RAISE EXCEPTION 'the security floor of product % never decreases (% -> %)', OLD.product_id, OLD.security_floor, NEW.security_floor
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER license_products_security_floor_monotonic BEFORE UPDATE OF security_floor ON license_products
  FOR EACH ROW EXECUTE FUNCTION license_security_floor_monotonic();

-- The release a machine reported at its last activation or validation (written by the client protocol);
-- NULL until it reports one. Deprecate and mark-compromised count a release's active machines here.
ALTER TABLE license_machines ADD COLUMN release_id text REFERENCES license_releases (release_id);
CREATE INDEX license_machines_active_release ON license_machines (release_id) WHERE status = 'active' AND release_id IS NOT NULL;

-- Every instance hears of release changes at commit (LISTEN tollgate_license_releases; payload: the
-- product id), so release gates on other instances drop their cached judgements at once instead of
-- after their TTL. Triggers rather than application code, so a change made by any statement (the CLI,
-- a repair by hand) is announced too. NOTIFY is transactional: nothing is sent for a rollback, and one
-- notice per product per transaction (PostgreSQL folds identical payloads).
CREATE FUNCTION license_releases_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tollgate_license_releases', NEW.product_id);
  RETURN NULL;
END;
$$;
CREATE TRIGGER license_releases_notify_change AFTER INSERT OR UPDATE ON license_releases
  FOR EACH ROW EXECUTE FUNCTION license_releases_notify_change();
CREATE TRIGGER license_products_security_floor_notify AFTER UPDATE OF security_floor ON license_products
  FOR EACH ROW WHEN (NEW.security_floor IS DISTINCT FROM OLD.security_floor) EXECUTE FUNCTION license_releases_notify_change();
