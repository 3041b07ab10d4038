-- The gateway's money moves, each one round trip: the hot rows (an organisation's balance, a key's
-- monthly spend) stay locked only while the function runs, never across a network round trip,
-- and one call admits or settles a whole batch of concurrent gateway calls.
-- Lock order everywhere: credit_balances, then key_spend.

-- Reserves every amount of a batch against the organisation's credit and the key's budget, or
-- none: SQLSTATE MW402 when the credit cannot hold the batch, MW429 when the budget cannot.
CREATE FUNCTION "app"."reserve_calls"(
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
--> statement-breakpoint

-- Settles a batch of one key's calls: their reservations are released, each completion recorded,
-- its actual cost charged to the credit (one ledger entry per completion, never below zero) and
-- added to the key's monthly spend. A call whose reservation is already gone (swept) is skipped;
-- the completion ids settled are returned.
CREATE FUNCTION "app"."settle_calls"(
	p_organization_id uuid,
	p_key_id uuid,
	p_period_start date,
	p_calls jsonb
) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	balance bigint;
BEGIN
	SELECT "balance_nanos" INTO balance FROM "app"."credit_balances" WHERE "organization_id" = p_organization_id FOR UPDATE;
	balance := coalesce(balance, 0);
	RETURN QUERY
	WITH released AS (
		DELETE FROM "app"."reservations" AS r
		USING jsonb_to_recordset(p_calls) AS c(reservation_id uuid)
		WHERE r."id" = c.reservation_id AND r."organization_id" = p_organization_id
		RETURNING r."id", r."amount_nanos"
	), calls AS (
		SELECT c.*, released."amount_nanos" AS reserved_nanos
		FROM jsonb_to_recordset(p_calls) AS c(
			ord int, reservation_id uuid, completion_id text, created_at timestamptz, model text,
			estimated_input_tokens int, input_tokens int, estimated_input_cost_nanos bigint, input_cost_nanos bigint,
			output_tokens int, output_cost_nanos bigint, total_cost_nanos bigint, usage_estimated boolean
		)
		JOIN released ON released."id" = c.reservation_id
	), charged AS (
		-- A provider that overshoots max_tokens is charged down to zero, never below.
		SELECT calls.*, greatest(least(total_cost_nanos, balance - coalesce(sum(total_cost_nanos) OVER earlier, 0)), 0) AS charge_nanos
		FROM calls WINDOW earlier AS (ORDER BY ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
	), settled AS (
		SELECT charged.*, balance - sum(charge_nanos) OVER (ORDER BY ord) AS balance_after_nanos FROM charged
	), credit AS (
		UPDATE "app"."credit_balances"
			SET "balance_nanos" = "balance_nanos" - (SELECT coalesce(sum(charge_nanos), 0) FROM settled),
				"reserved_nanos" = greatest("reserved_nanos" - (SELECT coalesce(sum(reserved_nanos), 0) FROM settled), 0),
				"updated_at" = now()
			WHERE "organization_id" = p_organization_id
	), spend AS (
		UPDATE "app"."key_spend"
			SET "spent_nanos" = "spent_nanos" + (SELECT coalesce(sum(total_cost_nanos), 0) FROM settled),
				"reserved_nanos" = greatest("reserved_nanos" - (SELECT coalesce(sum(reserved_nanos), 0) FROM settled), 0)
			WHERE "publishable_key_id" = p_key_id AND "period_start" = p_period_start
	), entries AS (
		INSERT INTO "app"."credit_entries" ("id", "organization_id", "kind", "amount_nanos", "balance_after_nanos", "reference")
			SELECT gen_random_uuid(), p_organization_id, 'usage_charge', -charge_nanos, balance_after_nanos, completion_id
			FROM settled WHERE charge_nanos > 0
	), completions AS (
		INSERT INTO "app"."chat_completions" (
			"id", "organization_id", "publishable_key_id", "created_at", "model", "estimated_input_tokens", "input_tokens",
			"estimated_input_cost_nanos", "input_cost_nanos", "output_tokens", "output_cost_nanos", "total_cost_nanos", "usage_estimated"
		)
			SELECT completion_id, p_organization_id, p_key_id, created_at, model, estimated_input_tokens, input_tokens,
				estimated_input_cost_nanos, input_cost_nanos, output_tokens, output_cost_nanos, total_cost_nanos, usage_estimated
			FROM settled
	)
	SELECT completion_id FROM settled ORDER BY ord;
END;
$$;
