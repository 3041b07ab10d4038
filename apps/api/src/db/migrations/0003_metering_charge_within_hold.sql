-- A call is never charged more than admission held for it. Admission reserves the worst case from
-- our own estimate of the input; a provider whose tokenizer counts a few more input tokens would
-- otherwise push a key's spend past its budget (and, with the credit held to the last nano-dollar,
-- leave the ledger charge short of the recorded cost). The difference is ours to absorb: the
-- completion keeps the provider's token counts and their prices, and its total is what was charged.

-- Settles a batch of one key's calls: their reservations are released, each completion recorded,
-- its cost (at most its reservation) charged to the credit (one ledger entry per completion, never
-- below zero) and added to the key's monthly spend. A call whose reservation is already gone
-- (swept) is skipped; the completion ids settled are returned.
CREATE OR REPLACE FUNCTION "app"."settle_calls"(
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
		SELECT c.*, released."amount_nanos" AS reserved_nanos, least(c.total_cost_nanos, released."amount_nanos") AS billed_nanos
		FROM jsonb_to_recordset(p_calls) AS c(
			ord int, reservation_id uuid, completion_id text, created_at timestamptz, model text,
			estimated_input_tokens int, input_tokens int, estimated_input_cost_nanos bigint, input_cost_nanos bigint,
			output_tokens int, output_cost_nanos bigint, total_cost_nanos bigint, usage_estimated boolean
		)
		JOIN released ON released."id" = c.reservation_id
	), charged AS (
		-- Within its hold a call always fits the credit; the floor at zero is only a last guard.
		SELECT calls.*, greatest(least(billed_nanos, balance - coalesce(sum(billed_nanos) OVER earlier, 0)), 0) AS charge_nanos
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
			SET "spent_nanos" = "spent_nanos" + (SELECT coalesce(sum(billed_nanos), 0) FROM settled),
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
				estimated_input_cost_nanos, input_cost_nanos, output_tokens, output_cost_nanos, billed_nanos, usage_estimated
			FROM settled
	)
	SELECT completion_id FROM settled ORDER BY ord;
END;
$$;
