-- Settlement: a batch of one key's calls in one round trip. Their reservations are released, each
-- completion recorded, its cost charged to the credit (one ledger entry per completion) and added
-- to the key's spend for the period. A call whose reservation is already gone (swept) is skipped;
-- each call settled is returned with what it cost above its hold and what went unpaid.
--
-- A call is charged what its provider reported, priced from the price list, even above its hold.
-- A hold covers the worst case the request can cost, so a report above it means the provider or
-- our estimate of the input was wrong: the excess is recorded on the row (over_hold_nanos) and
-- taken from the credit that no other call holds; what even that cannot pay is recorded as
-- unpaid_nanos, never hidden. So, for every row: total_cost = input_cost + output_cost, and its
-- ledger charge = total_cost - unpaid_nanos. Rows also keep the price-list version they were
-- priced with and the cached input tokens.
--
-- The hot rows stay locked only while the function runs, never across a network round trip, in
-- admission's order: credit_balances, then key_spend.
CREATE OR REPLACE FUNCTION "app"."settle_calls"(
	p_organization_id uuid,
	p_key_id uuid,
	p_period_start date,
	p_calls jsonb
) RETURNS TABLE (completion_id text, over_hold_nanos bigint, unpaid_nanos bigint) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	balance bigint;
	reserved bigint;
BEGIN
	-- Locked first, as admission locks it, so the two never deadlock.
	SELECT b."balance_nanos", b."reserved_nanos" INTO balance, reserved
		FROM "app"."credit_balances" AS b WHERE b."organization_id" = p_organization_id FOR UPDATE;
	balance := coalesce(balance, 0);
	reserved := coalesce(reserved, 0);
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
			estimated_input_tokens int, input_tokens int, cached_input_tokens int, estimated_input_cost_nanos bigint,
			input_cost_nanos bigint, output_tokens int, output_cost_nanos bigint, total_cost_nanos bigint, usage_estimated boolean,
			price_version text
		)
		JOIN released ON released."id" = c.reservation_id
	), charged AS (
		-- What the batch may take: its own holds and the credit no other call holds.
		SELECT calls.*, greatest(least(calls.total_cost_nanos,
				balance - greatest(reserved - (SELECT sum(x.reserved_nanos) FROM calls AS x), 0) - coalesce(sum(calls.total_cost_nanos) OVER earlier, 0)
			), 0)::bigint AS charge_nanos
		FROM calls WINDOW earlier AS (ORDER BY calls.ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
	), settled AS (
		SELECT charged.*, (balance - sum(charged.charge_nanos) OVER (ORDER BY charged.ord))::bigint AS balance_after_nanos,
			greatest(charged.total_cost_nanos - charged.reserved_nanos, 0) AS over_nanos
		FROM charged
	), credit AS (
		UPDATE "app"."credit_balances"
			SET "balance_nanos" = "balance_nanos" - (SELECT coalesce(sum(s.charge_nanos), 0) FROM settled AS s),
				"reserved_nanos" = greatest("reserved_nanos" - (SELECT coalesce(sum(s.reserved_nanos), 0) FROM settled AS s), 0),
				"updated_at" = now()
			WHERE "organization_id" = p_organization_id
	), spend AS (
		UPDATE "app"."key_spend"
			SET "spent_nanos" = "spent_nanos" + (SELECT coalesce(sum(s.total_cost_nanos), 0) FROM settled AS s),
				"reserved_nanos" = greatest("reserved_nanos" - (SELECT coalesce(sum(s.reserved_nanos), 0) FROM settled AS s), 0)
			WHERE "publishable_key_id" = p_key_id AND "period_start" = p_period_start
	), entries AS (
		INSERT INTO "app"."credit_entries" ("id", "organization_id", "kind", "amount_nanos", "balance_after_nanos", "reference")
			SELECT gen_random_uuid(), p_organization_id, 'usage_charge', -s.charge_nanos, s.balance_after_nanos, s.completion_id
			FROM settled AS s WHERE s.charge_nanos > 0
	), completions AS (
		INSERT INTO "app"."chat_completions" (
			"id", "organization_id", "publishable_key_id", "created_at", "model", "estimated_input_tokens", "input_tokens",
			"cached_input_tokens", "estimated_input_cost_nanos", "input_cost_nanos", "output_tokens", "output_cost_nanos",
			"total_cost_nanos", "usage_estimated", "price_version", "over_hold_nanos", "unpaid_nanos"
		)
			SELECT s.completion_id, p_organization_id, p_key_id, s.created_at, s.model, s.estimated_input_tokens, s.input_tokens,
				s.cached_input_tokens, s.estimated_input_cost_nanos, s.input_cost_nanos, s.output_tokens, s.output_cost_nanos,
				s.total_cost_nanos, s.usage_estimated, s.price_version, s.over_nanos, s.total_cost_nanos - s.charge_nanos
			FROM settled AS s
	)
	SELECT s.completion_id, s.over_nanos, s.total_cost_nanos - s.charge_nanos FROM settled AS s ORDER BY s.ord;
END;
$$;
