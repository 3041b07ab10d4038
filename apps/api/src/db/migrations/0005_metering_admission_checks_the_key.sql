-- Admission checks the key itself, so a gateway instance may keep the keys it has seen: every
-- call is still admitted only if, when its reservation is taken, its key is live, the value it
-- presented still authenticates and the allowed origins it was checked against are the key's own.
-- Otherwise SQLSTATE MW401 (nothing reserved): the gateway reads the key again and decides afresh.
-- The budget is read from the key row here, never from what the caller last saw.
DROP FUNCTION "app"."reserve_calls"(uuid, uuid, date, bigint, uuid[], bigint[], timestamptz);
--> statement-breakpoint
CREATE FUNCTION "app"."admit_calls"(
	p_key_id uuid,
	p_key_value text,
	p_allowed_origins jsonb,
	p_now timestamptz,
	p_period_start date,
	p_reservation_ids uuid[],
	p_amounts bigint[],
	p_expires_at timestamptz
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	total bigint := (SELECT coalesce(sum(amount), 0) FROM unnest(p_amounts) AS amount);
	organization uuid;
	spend_limit bigint;
BEGIN
	-- A reservation moves no money, so its commit need not wait for the disk (see 0002).
	PERFORM set_config('synchronous_commit', 'off', true);
	SELECT "organization_id", "spend_limit_nanos" INTO organization, spend_limit
		FROM "app"."publishable_keys"
		WHERE "id" = p_key_id AND "deleted_at" IS NULL AND "allowed_origins" = p_allowed_origins
			AND ("value" = p_key_value OR ("previous_value" = p_key_value AND "previous_value_expires_at" > p_now));
	IF NOT FOUND THEN
		RAISE EXCEPTION 'key changed' USING ERRCODE = 'MW401';
	END IF;
	UPDATE "app"."credit_balances"
		SET "reserved_nanos" = "reserved_nanos" + total
		WHERE "organization_id" = organization AND "balance_nanos" - "reserved_nanos" >= total;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'insufficient credit' USING ERRCODE = 'MW402';
	END IF;
	INSERT INTO "app"."key_spend" AS s ("publishable_key_id", "period_start", "reserved_nanos")
		SELECT p_key_id, p_period_start, total WHERE total <= spend_limit
		ON CONFLICT ("publishable_key_id", "period_start") DO UPDATE
			SET "reserved_nanos" = s."reserved_nanos" + excluded."reserved_nanos"
			WHERE s."spent_nanos" + s."reserved_nanos" + excluded."reserved_nanos" <= spend_limit;
	IF NOT FOUND THEN
		-- Raising undoes the credit reservation above with the rest of the statement.
		RAISE EXCEPTION 'key budget exhausted' USING ERRCODE = 'MW429';
	END IF;
	INSERT INTO "app"."reservations" ("id", "organization_id", "publishable_key_id", "period_start", "amount_nanos", "expires_at")
		SELECT id, organization, p_key_id, p_period_start, amount, p_expires_at
		FROM unnest(p_reservation_ids, p_amounts) AS batch(id, amount);
END;
$$;
--> statement-breakpoint
-- Settlement, same contract as 0003, in a new order. It finds its reservations by primary key
-- (joining them to the call list let the planner scan the whole table, which holds every recent
-- call's dead row until vacuum reaches it), and records the completions before it locks the
-- organisation's balance row and the key's spend row, which admission of the key's next calls
-- needs: those wait for the charge and the commit only, not for the inserts. Rows are still
-- locked in admission's order (balance, then spend), so the two never deadlock.
CREATE OR REPLACE FUNCTION "app"."settle_calls"(
	p_organization_id uuid,
	p_key_id uuid,
	p_period_start date,
	p_calls jsonb
) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	reservation_ids uuid[] := ARRAY(SELECT (call->>'reservation_id')::uuid FROM jsonb_array_elements(p_calls) AS call);
	completion_ids text[];
	billed bigint[];
	reserved_total bigint;
	billed_total bigint;
	balance bigint;
BEGIN
	WITH released AS (
		DELETE FROM "app"."reservations" AS r
		WHERE r."id" = ANY(reservation_ids) AND r."organization_id" = p_organization_id
		RETURNING r."id", r."amount_nanos"
	), calls AS (
		SELECT c.*, released."amount_nanos" AS reserved_nanos, least(c.total_cost_nanos, released."amount_nanos") AS billed_nanos
		FROM jsonb_to_recordset(p_calls) AS c(
			ord int, reservation_id uuid, completion_id text, created_at timestamptz, model text,
			estimated_input_tokens int, input_tokens int, estimated_input_cost_nanos bigint, input_cost_nanos bigint,
			output_tokens int, output_cost_nanos bigint, total_cost_nanos bigint, usage_estimated boolean
		)
		JOIN released ON released."id" = c.reservation_id
	), completions AS (
		INSERT INTO "app"."chat_completions" (
			"id", "organization_id", "publishable_key_id", "created_at", "model", "estimated_input_tokens", "input_tokens",
			"estimated_input_cost_nanos", "input_cost_nanos", "output_tokens", "output_cost_nanos", "total_cost_nanos", "usage_estimated"
		)
			SELECT completion_id, p_organization_id, p_key_id, created_at, model, estimated_input_tokens, input_tokens,
				estimated_input_cost_nanos, input_cost_nanos, output_tokens, output_cost_nanos, billed_nanos, usage_estimated
			FROM calls
	)
	SELECT array_agg(completion_id ORDER BY ord), array_agg(billed_nanos ORDER BY ord), sum(reserved_nanos), sum(billed_nanos)
		INTO completion_ids, billed, reserved_total, billed_total
		FROM calls;
	-- Every reservation already swept: nothing to charge.
	IF completion_ids IS NULL THEN
		RETURN;
	END IF;

	SELECT "balance_nanos" INTO balance FROM "app"."credit_balances" WHERE "organization_id" = p_organization_id FOR UPDATE;
	balance := coalesce(balance, 0);
	WITH charged AS (
		-- Within its hold a call always fits the credit; the floor at zero is only a last guard.
		SELECT completion_id, ord, greatest(least(billed_nanos, balance - coalesce(sum(billed_nanos) OVER earlier, 0)), 0) AS charge_nanos
		FROM unnest(completion_ids, billed) WITH ORDINALITY AS call(completion_id, billed_nanos, ord)
		WINDOW earlier AS (ORDER BY ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
	), settled AS (
		SELECT charged.*, balance - sum(charge_nanos) OVER (ORDER BY ord) AS balance_after_nanos FROM charged
	), credit AS (
		UPDATE "app"."credit_balances"
			SET "balance_nanos" = "balance_nanos" - (SELECT coalesce(sum(charge_nanos), 0) FROM settled),
				"reserved_nanos" = greatest("reserved_nanos" - reserved_total, 0),
				"updated_at" = now()
			WHERE "organization_id" = p_organization_id
	)
	INSERT INTO "app"."credit_entries" ("id", "organization_id", "kind", "amount_nanos", "balance_after_nanos", "reference")
		SELECT gen_random_uuid(), p_organization_id, 'usage_charge', -charge_nanos, balance_after_nanos, completion_id
		FROM settled WHERE charge_nanos > 0;
	UPDATE "app"."key_spend"
		SET "spent_nanos" = "spent_nanos" + billed_total,
			"reserved_nanos" = greatest("reserved_nanos" - reserved_total, 0)
		WHERE "publishable_key_id" = p_key_id AND "period_start" = p_period_start;
	RETURN QUERY SELECT unnest(completion_ids);
END;
$$;
