-- Payment refs. snapshot is the exact JSON text returned at creation and is never rewritten.
CREATE TABLE gateway_refs (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES gateway_merchants (id),
  pay_to text NOT NULL REFERENCES gateway_pay_tos (address),
  network text NOT NULL,
  asset text NOT NULL,
  amount text,
  invoice_id text,
  label text,
  notify_url text,
  snapshot text NOT NULL,
  status text NOT NULL CONSTRAINT gateway_refs_status_check CHECK (status IN ('active', 'revoked')),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  CONSTRAINT gateway_refs_revoked_check CHECK ((status = 'revoked') = (revoked_at IS NOT NULL))
);

-- An invoice id names one active ref per merchant; revoking the ref frees it.
CREATE UNIQUE INDEX gateway_refs_invoice ON gateway_refs (merchant_id, invoice_id)
  WHERE invoice_id IS NOT NULL AND status = 'active';

-- GET /ref: one merchant's refs for one payTo, newest first, keyset-paginated on (created_at, id).
CREATE INDEX gateway_refs_list ON gateway_refs (merchant_id, pay_to, created_at DESC, id DESC);
