-- Catalog (features, groups, tiers) and policies of each product (docs/policies.md).

-- Policies: the current document per policy, and every version ever stored (versions are immutable).
-- `document` is the full Policy document as JSON (docs/policies.md); its `id` equals `policy_id`.
CREATE TABLE license_policies (
  policy_id text PRIMARY KEY CHECK (policy_id ~ '^[0-9a-f]{32}$'),
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  product_id text NOT NULL REFERENCES license_products (product_id),
  version integer NOT NULL CHECK (version >= 1),
  document jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX license_policies_vendor ON license_policies (vendor_id, created_at, policy_id);

CREATE TABLE license_policy_versions (
  policy_id text NOT NULL REFERENCES license_policies (policy_id),
  version integer NOT NULL CHECK (version >= 1),
  document jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  actor text NOT NULL,
  PRIMARY KEY (policy_id, version)
);

-- Catalog items of a product: features, groups (of features) and tiers (of features and groups).
-- `item_id` is an operator-chosen slug, unique per (product, kind) and immutable: creation is
-- publication, and no item is ever deleted, so a member found once stays valid forever (that is what
-- lets writes check membership without locking the members). `members` lists, sorted and without
-- duplicates, the feature ids (groups, tiers) and group ids (tiers only) of the same product.
CREATE TABLE license_catalog_items (
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  product_id text NOT NULL REFERENCES license_products (product_id),
  kind text NOT NULL CHECK (kind IN ('feature', 'group', 'tier')),
  item_id text NOT NULL CHECK (item_id ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 2000),
  members jsonb NOT NULL DEFAULT '{"features": [], "groups": []}',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (product_id, kind, item_id),
  CHECK (jsonb_typeof(members -> 'features') = 'array' AND jsonb_typeof(members -> 'groups') = 'array'),
  CHECK (kind <> 'feature' OR members = '{"features": [], "groups": []}'),
  CHECK (kind = 'tier' OR members -> 'groups' = '[]')
);
-- Lists page by publication order within one product.
CREATE INDEX license_catalog_items_list ON license_catalog_items (vendor_id, product_id, kind, created_at, item_id);
-- PATCH routes name an item by id alone first (is it one of the caller's?), then by product.
CREATE INDEX license_catalog_items_vendor_item ON license_catalog_items (vendor_id, kind, item_id);
