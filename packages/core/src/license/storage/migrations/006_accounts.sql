-- End-user accounts of a product (Admin `POST /v1/admin/accounts`; login arrives with the client
-- protocol). docs/decisions.md "License: accounts".

-- `email` is stored normalised (trimmed, lower case) so that the unique index makes the address
-- case-insensitively unique per product. `password_hash` is a self-describing scrypt string
-- (`scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`): the parameters travel with the hash so they can be raised
-- later without breaking stored accounts. `vendor_id` repeats the product's vendor so every Admin
-- query filters on it directly.
CREATE TABLE license_accounts (
  account_id text PRIMARY KEY CHECK (account_id ~ '^[0-9a-f]{32}$'),
  vendor_id text NOT NULL REFERENCES license_vendors (vendor_id),
  product_id text NOT NULL REFERENCES license_products (product_id),
  email text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254 AND email = lower(btrim(email))),
  password_hash text NOT NULL CHECK (password_hash LIKE 'scrypt$%'),
  max_devices integer NOT NULL CHECK (max_devices BETWEEN 1 AND 1000),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX license_accounts_product_email ON license_accounts (product_id, email);
-- The Admin list: a vendor's accounts newest first, optionally of one product.
CREATE INDEX license_accounts_vendor ON license_accounts (vendor_id, created_at DESC, account_id DESC);
CREATE INDEX license_accounts_vendor_product ON license_accounts (vendor_id, product_id, created_at DESC, account_id DESC);
