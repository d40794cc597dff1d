-- Order mode (gateway/orders): the ref of an order and the refund ref of a refund intent take ONE
-- payment. Two payments of them (two authorizations, both signed) would both settle on chain: an order
-- paid twice, or a merchant paying a refund back twice. The claim marks its payment `exclusive` when
-- its ref is a refund ref or an order's ref (read in the claim's statement), and this index lets at
-- most one such payment be claimed at a time: a concurrent second claim waits for the first to commit,
-- then inserts nothing (ON CONFLICT DO NOTHING) and is answered `ref_used`. A failed payment frees the
-- ref for another attempt; a released claim is deleted, so it frees it too.
ALTER TABLE gateway_payments ADD COLUMN exclusive boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX gateway_payments_exclusive_ref ON gateway_payments (ref_id) WHERE exclusive AND state <> 'failed';

-- The settlement statement copies an order's metadata into its notifications as a JSON object
-- (sql-settlement-effects.ts): keep it one, so that copy can never fail a settlement's write.
ALTER TABLE gateway_orders ADD CONSTRAINT gateway_orders_metadata_check CHECK (metadata IS NULL OR jsonb_typeof(metadata::jsonb) = 'object');
