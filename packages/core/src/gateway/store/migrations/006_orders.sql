-- Order mode (gateway/orders): orders, refund intents, and the refund refs that pay a payer back.
-- Amounts are atomic USDC units in numeric(78,0) (2^256 fits), so every sum and limit is exact SQL
-- arithmetic. Times come from the application's Clock, never from now().

-- A refund ref pays an order's payer back: its payTo is the payer's address, which no merchant
-- registered, so the payTo reference of refs moves from a foreign key to a trigger that applies to
-- payment refs only. A refund ref accepts exactly one payer (the order's payTo, `refund_from`) and is
-- bound to the original receipt (`refund_of`, `sha256:<hex>`).
ALTER TABLE gateway_refs ADD COLUMN kind text NOT NULL DEFAULT 'payment'
  CONSTRAINT gateway_refs_kind_check CHECK (kind IN ('payment', 'refund'));
ALTER TABLE gateway_refs ADD COLUMN refund_of text;
ALTER TABLE gateway_refs ADD COLUMN refund_from text;
ALTER TABLE gateway_refs ADD CONSTRAINT gateway_refs_refund_check CHECK (
  (kind = 'refund') = (refund_of IS NOT NULL AND refund_from IS NOT NULL)
);
ALTER TABLE gateway_refs DROP CONSTRAINT gateway_refs_pay_to_fkey;

CREATE FUNCTION gateway_refs_require_registered_pay_to() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.kind = 'payment' AND NOT EXISTS (SELECT 1 FROM gateway_pay_tos WHERE address = NEW.pay_to) THEN
    RAISE EXCEPTION 'payment ref % names an unregistered payTo', NEW.id USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER gateway_refs_pay_to_registered BEFORE INSERT OR UPDATE OF pay_to, kind ON gateway_refs
  FOR EACH ROW EXECUTE FUNCTION gateway_refs_require_registered_pay_to();

-- Orders. `status` is what the order's payments made of it; "expired" is not stored: an unpaid order
-- whose expires_at passed reads as expired (its ref refuses payment with ref_expired from then on).
--   unpaid → paid (its ref's payment settled) → partially_refunded → refunded
--   unpaid → cancelled (POST /order/:id/cancel, only while no payment of its ref is claimed)
-- A payment that settles always moves the order to paid, even one that raced a cancel or an expiry:
-- the chain is the truth (the claim protocol makes that race impossible; see sql-orders.ts).
CREATE TABLE gateway_orders (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES gateway_merchants (id),
  ref_id text NOT NULL CONSTRAINT gateway_orders_ref_key UNIQUE REFERENCES gateway_refs (id),
  pay_to text NOT NULL,
  network text NOT NULL,
  asset text NOT NULL,
  amount numeric(78, 0) NOT NULL CONSTRAINT gateway_orders_amount_check CHECK (amount > 0),
  invoice_id text,
  label text,
  description text,
  -- JSON object text, as the merchant sent it (bounded by the route).
  metadata text,
  notify_url text,
  status text NOT NULL CONSTRAINT gateway_orders_status_check
    CHECK (status IN ('unpaid', 'paid', 'partially_refunded', 'refunded', 'cancelled')),
  -- The settled payment of the order's ref, and what its receipt said.
  payment_id text CONSTRAINT gateway_orders_payment_key UNIQUE REFERENCES gateway_payments (payment_id),
  payer text,
  tx_hash text,
  receipt_hash text,
  -- Open refund intents reserve their amount; a paid refund moves it to refunded. The check is the
  -- last line against an over-refund: no statement can make the two exceed what was paid.
  refund_reserved numeric(78, 0) NOT NULL DEFAULT 0,
  refunded numeric(78, 0) NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  paid_at timestamptz,
  cancelled_at timestamptz,
  updated_at timestamptz NOT NULL,
  CONSTRAINT gateway_orders_refund_sum_check CHECK (refund_reserved >= 0 AND refunded >= 0 AND refund_reserved + refunded <= amount),
  CONSTRAINT gateway_orders_paid_check CHECK (
    (status IN ('unpaid', 'cancelled')) = (payment_id IS NULL)
    AND (status IN ('unpaid', 'cancelled')) = (paid_at IS NULL)
    AND (status IN ('paid', 'partially_refunded', 'refunded') OR (refund_reserved = 0 AND refunded = 0))
    AND (status <> 'refunded' OR refunded = amount)
  ),
  CONSTRAINT gateway_orders_cancel_check CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
);

-- GET /order: one merchant's orders newest first, optionally by status; keyset on (created_at, id).
CREATE INDEX gateway_orders_list ON gateway_orders (merchant_id, created_at DESC, id DESC);
CREATE INDEX gateway_orders_status_list ON gateway_orders (merchant_id, status, created_at DESC, id DESC);

-- Refund intents. One refund ref each (the payment that pays it back), bound to the order's settled
-- payment: its receipt hash, payer (who receives) and payTo (who pays), network and asset.
--   open → paid (its refund ref's payment settled: the amount moves from reserved to refunded)
--   open → rejected (POST …/reject, only while no payment of its ref is claimed; signs a
--          rejected-refund receipt; the reservation is released)
--   open → expired (its ref expired with no payment claimed; released when next looked at)
CREATE TABLE gateway_refunds (
  id text PRIMARY KEY,
  order_id text NOT NULL REFERENCES gateway_orders (id),
  merchant_id text NOT NULL REFERENCES gateway_merchants (id),
  ref_id text NOT NULL CONSTRAINT gateway_refunds_ref_key UNIQUE REFERENCES gateway_refs (id),
  amount numeric(78, 0) NOT NULL CONSTRAINT gateway_refunds_amount_check CHECK (amount > 0),
  original_receipt_hash text NOT NULL,
  original_payment_id text NOT NULL REFERENCES gateway_payments (payment_id),
  -- The refund's recipient (the original payer) and its sender (the original payTo).
  payer text NOT NULL,
  pay_to text NOT NULL,
  network text NOT NULL,
  asset text NOT NULL,
  reason text,
  status text NOT NULL CONSTRAINT gateway_refunds_status_check CHECK (status IN ('open', 'paid', 'rejected', 'expired')),
  payment_id text CONSTRAINT gateway_refunds_payment_key UNIQUE REFERENCES gateway_payments (payment_id),
  tx_hash text,
  receipt_hash text,
  rejection_reason text,
  -- The signed rejected-refund receipt, stored so every read answers the same bytes.
  rejection_receipt text,
  signed_rejection_receipt text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  paid_at timestamptz,
  rejected_at timestamptz,
  updated_at timestamptz NOT NULL,
  CONSTRAINT gateway_refunds_paid_check CHECK ((status = 'paid') = (payment_id IS NOT NULL AND paid_at IS NOT NULL)),
  CONSTRAINT gateway_refunds_rejected_check CHECK (
    (status = 'rejected') = (rejected_at IS NOT NULL AND rejection_receipt IS NOT NULL AND signed_rejection_receipt IS NOT NULL)
  )
);

-- GET /order/:id/refunds, oldest first; and the open intents of an order (expiry release).
CREATE INDEX gateway_refunds_order ON gateway_refunds (order_id, created_at, id);
