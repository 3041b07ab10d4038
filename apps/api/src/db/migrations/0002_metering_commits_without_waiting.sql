-- Admission's commit stops waiting for the disk (synchronous_commit off, for its own transaction
-- only). A reservation moves no money: if the database crashed before this commit reached disk,
-- the hold would vanish together with the credit and budget it held, and the call's settlement
-- would find no reservation and charge nothing. No balance, ledger or budget can be wrong; at
-- worst an instant of calls goes uncharged. In exchange the hot rows (an organisation's balance,
-- a key's spend) are not locked across a disk flush at admission. Settlement, top-ups and every
-- other ledger entry still commit durably (and any durable commit also flushes these).

-- Reserves every amount of a batch against the organisation's credit and the key's budget, or
-- none: SQLSTATE MW402 when the credit cannot hold the batch, MW429 when the budget cannot.
CREATE OR REPLACE FUNCTION "app"."reserve_calls"(
	p_organization_id uuid,
	p_key_id uuid,
	p_period_start date,
	p_spend_limit_nanos bigint,
	p_reservation_ids uuid[],
	p_amounts bigint[],
	p_expires_at timestamptz
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	total bigint := (SELECT coalesce(sum(amount), 0) FROM unnest(p_amounts) AS amount);
BEGIN
	PERFORM set_config('synchronous_commit', 'off', true);
	UPDATE "app"."credit_balances"
		SET "reserved_nanos" = "reserved_nanos" + total
		WHERE "organization_id" = p_organization_id AND "balance_nanos" - "reserved_nanos" >= total;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'insufficient credit' USING ERRCODE = 'MW402';
	END IF;
	INSERT INTO "app"."key_spend" ("publishable_key_id", "period_start") VALUES (p_key_id, p_period_start) ON CONFLICT DO NOTHING;
	UPDATE "app"."key_spend"
		SET "reserved_nanos" = "reserved_nanos" + total
		WHERE "publishable_key_id" = p_key_id AND "period_start" = p_period_start
			AND "spent_nanos" + "reserved_nanos" + total <= p_spend_limit_nanos;
	IF NOT FOUND THEN
		-- Raising undoes the credit reservation above with the rest of the statement.
		RAISE EXCEPTION 'key budget exhausted' USING ERRCODE = 'MW429';
	END IF;
	INSERT INTO "app"."reservations" ("id", "organization_id", "publishable_key_id", "period_start", "amount_nanos", "expires_at")
		SELECT id, p_organization_id, p_key_id, p_period_start, amount, p_expires_at
		FROM unnest(p_reservation_ids, p_amounts) AS batch(id, amount);
END;
$$;
