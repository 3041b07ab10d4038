-- Settlement: a batch of one key's calls in one round trip. Their reservations are released, each
-- completion recorded, their costs charged to the credit in one ledger entry (usage_charge, its
-- reference the batch's first completion, and named by each completion it charged) and added to
-- the key's spend for the period and to each allowance of its caller the hold names
-- (caller_spend), and its caller (client address, end user) counted in caller_hours. A call whose
-- reservation is already gone (swept) is skipped;
-- each call settled is returned with what it cost above its hold and what went unpaid.
--
-- A call is charged what its provider reported, priced from the price list, even above its hold.
-- A hold covers the worst case the request can cost, so a report above it means the provider or
-- our estimate of the input was wrong: the excess is recorded on the row (over_hold_nanos) and
-- taken from the credit, that other calls hold included (they then pay from what is left). What
-- the credit cannot pay, over a hold or because a refund, dispute or expiry took the credit back
-- while the call was in flight, is recorded as unpaid_nanos and becomes owed in the same
-- transaction: the charge's entry carries it (owed_nanos) and the balance row adds it, so spent =
-- paid + owed and the organisation's keys are refused until a top-up pays it. So, for every row:
-- total_cost = input_cost + output_cost, its share of its usage_charge entry's amount = total_cost
-- - unpaid_nanos, and of the entry's debt = unpaid_nanos. Rows also keep the price-list version
-- they were priced with, the cached input tokens, the end user and the caller's network.
--
-- p_now is when the caller settles: grants expire and auto top-up months turn by it, as admission's
-- p_now, so one clock (the app's, or a test's) decides both.
--
-- It releases its reservations each by its primary key (app.delete_holds) and records the
-- completions before it locks the organisation's balance row and the key's spend row, which
-- admission of the key's next calls needs: those wait for the charge and the commit only, not for
-- the inserts. The hot rows are locked in admission's order (credit_balances, key_spend, then
-- caller_spend), so the two never deadlock. A completion is inserted as fully paid; the rare one the credit could
-- not pay in full has its unpaid_nanos set once the balance is known. Every completion that cost
-- something names its batch's usage_charge entry.
--
-- Usage draws on promotional grants first, soonest expiry first (draw_grants), never on one past its
-- expiry: while one holds credit the sweep has not taken yet, the settlement is refused (SQLSTATE
-- MW410, nothing changed) and the caller sweeps the organisation's grants and settles again. A charge that
-- leaves the balance below the auto top-up threshold (kept on the balance row while auto top-up is
-- on) claims a charge if one is due (claim_auto_top_up); an organisation with neither pays for neither.
CREATE OR REPLACE FUNCTION "app"."settle_calls"(
	p_organization_id uuid,
	p_key_id uuid,
	p_period_start date,
	p_calls jsonb,
	p_now timestamptz
) RETURNS TABLE (completion_id text, over_hold_nanos bigint, unpaid_nanos bigint) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	reservation_ids uuid[] := ARRAY(SELECT (call->>'reservation_id')::uuid FROM jsonb_array_elements(p_calls) AS call);
	charge_id uuid := gen_random_uuid();
	completion_ids text[];
	costs bigint[];
	overs bigint[];
	unpaids bigint[];
	reserved_total bigint;
	allowances text[];
	allowance_costs bigint[];
	allowance_helds bigint[];
	cost_total bigint;
	balance bigint;
	reserved bigint;
	promotional bigint;
	top_up_below bigint;
	charged_total bigint;
BEGIN
	WITH released AS (
		SELECT * FROM "app"."delete_holds"(array_fill(p_organization_id, ARRAY[cardinality(reservation_ids)]), reservation_ids)
	), calls AS (
		SELECT c.*, released."amount_nanos" AS reserved_nanos, released."allowances", greatest(c.total_cost_nanos - released."amount_nanos", 0) AS over_nanos
		FROM jsonb_to_recordset(p_calls) AS c(
			ord int, reservation_id uuid, completion_id text, created_at timestamptz, model text,
			estimated_input_tokens int, input_tokens int, cached_input_tokens int, estimated_input_cost_nanos bigint,
			input_cost_nanos bigint, output_tokens int, output_cost_nanos bigint, total_cost_nanos bigint, usage_estimated boolean,
			price_version text, client text, client_network text, end_user text, provider text
		)
		JOIN released ON released."id" = c.reservation_id
	), completions AS (
		INSERT INTO "app"."chat_completions" (
			"id", "organization_id", "publishable_key_id", "created_at", "model", "estimated_input_tokens", "input_tokens",
			"cached_input_tokens", "estimated_input_cost_nanos", "input_cost_nanos", "output_tokens", "output_cost_nanos",
			"total_cost_nanos", "usage_estimated", "price_version", "over_hold_nanos", "unpaid_nanos", "usage_charge_id", "end_user", "client_network", "provider"
		)
			SELECT calls.completion_id, p_organization_id, p_key_id, calls.created_at, calls.model, calls.estimated_input_tokens, calls.input_tokens,
				calls.cached_input_tokens, calls.estimated_input_cost_nanos, calls.input_cost_nanos, calls.output_tokens, calls.output_cost_nanos,
				calls.total_cost_nanos, calls.usage_estimated, calls.price_version, calls.over_nanos, 0,
				CASE WHEN calls.total_cost_nanos > 0 THEN charge_id END, calls.end_user, calls.client_network, calls.provider
			FROM calls
	), callers AS (
		-- Who called, hour by hour (rows without a client come from before it was recorded).
		INSERT INTO "app"."caller_hours" AS h ("organization_id", "publishable_key_id", "hour", "kind", "caller", "calls", "spent_nanos")
			SELECT p_organization_id, p_key_id, date_trunc('hour', calls.created_at), caller.kind, caller.name, count(*), sum(calls.total_cost_nanos)
			FROM calls CROSS JOIN LATERAL (VALUES ('address', calls.client), ('end_user', calls.end_user)) AS caller(kind, name)
			WHERE caller.name IS NOT NULL
			GROUP BY 3, 4, 5
			ORDER BY 3, 4, 5
		ON CONFLICT ("organization_id", "publishable_key_id", "hour", "kind", "caller") DO UPDATE
			SET "calls" = h."calls" + excluded."calls", "spent_nanos" = h."spent_nanos" + excluded."spent_nanos"
	), by_allowance AS (
		SELECT allowance, sum(calls.total_cost_nanos)::bigint AS cost, sum(calls.reserved_nanos)::bigint AS held
		FROM calls CROSS JOIN unnest(calls.allowances) AS allowance
		GROUP BY allowance
	)
	SELECT array_agg(calls.completion_id ORDER BY calls.ord), array_agg(calls.total_cost_nanos ORDER BY calls.ord),
			array_agg(calls.over_nanos ORDER BY calls.ord), sum(calls.reserved_nanos), sum(calls.total_cost_nanos),
			(SELECT array_agg(a.allowance ORDER BY a.allowance) FROM by_allowance AS a),
			(SELECT array_agg(a.cost ORDER BY a.allowance) FROM by_allowance AS a),
			(SELECT array_agg(a.held ORDER BY a.allowance) FROM by_allowance AS a)
		INTO completion_ids, costs, overs, reserved_total, cost_total, allowances, allowance_costs, allowance_helds
		FROM calls;
	-- Every reservation already gone (settled or swept): nothing to charge.
	IF completion_ids IS NULL THEN
		RETURN;
	END IF;

	SELECT b."balance_nanos", b."reserved_nanos", b."promotional_nanos", b."auto_top_up_below_nanos" INTO balance, reserved, promotional, top_up_below
		FROM "app"."credit_balances" AS b WHERE b."organization_id" = p_organization_id FOR UPDATE;
	balance := coalesce(balance, 0);
	reserved := coalesce(reserved, 0);
	promotional := coalesce(promotional, 0);
	-- Grants past their expiry pay for nothing: the caller sweeps them (domain/credit/expire-grants.ts) and settles again.
	IF promotional > 0 AND "app"."expired_grant_credit"(p_organization_id, p_now) > 0 THEN
		RAISE EXCEPTION 'grants of the organisation expired unswept' USING ERRCODE = 'MW410';
	END IF;
	WITH charged AS (
		-- What the batch may take: the whole balance, in the batch's order. Within its hold a call
		-- always fits unless credit was taken back (or expired) while it was in flight.
		SELECT call.completion_id, call.ord, call.cost_nanos,
			greatest(least(call.cost_nanos, balance - coalesce(sum(call.cost_nanos) OVER earlier, 0)), 0)::bigint AS charge_nanos
		FROM unnest(completion_ids, costs) WITH ORDINALITY AS call(completion_id, cost_nanos, ord)
		WINDOW earlier AS (ORDER BY call.ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
	), total AS (
		SELECT coalesce(sum(c.charge_nanos), 0)::bigint AS charged FROM charged AS c
	), credit AS (
		UPDATE "app"."credit_balances"
			SET "balance_nanos" = "balance_nanos" - total.charged,
				"owed_nanos" = "owed_nanos" + (cost_total - total.charged),
				"reserved_nanos" = greatest("reserved_nanos" - reserved_total, 0),
				"promotional_nanos" = greatest("promotional_nanos" - total.charged, 0),
				"updated_at" = p_now
			FROM total
			WHERE "organization_id" = p_organization_id
	), entry AS (
		INSERT INTO "app"."credit_entries" ("id", "organization_id", "kind", "amount_nanos", "owed_nanos", "balance_after_nanos", "reference")
			SELECT charge_id, p_organization_id, 'usage_charge', -total.charged, cost_total - total.charged, balance - total.charged, completion_ids[1]
			FROM total WHERE cost_total > 0
	)
	SELECT array_agg(c.cost_nanos - c.charge_nanos ORDER BY c.ord), coalesce(sum(c.charge_nanos), 0) INTO unpaids, charged_total FROM charged AS c;
	IF charged_total < cost_total THEN
		-- Rare: a call the credit could not pay in full. Each by its key, in a statement of its own:
		-- joined to the batch, the planner may scan every completion of the organisation instead (it
		-- did, on a table never analysed).
		FOR i IN 1 .. array_length(completion_ids, 1) LOOP
			CONTINUE WHEN unpaids[i] = 0;
			UPDATE "app"."chat_completions" SET "unpaid_nanos" = unpaids[i]
				WHERE "organization_id" = p_organization_id AND "id" = completion_ids[i];
		END LOOP;
	END IF;
	IF promotional > 0 AND charged_total > 0 THEN
		PERFORM "app"."draw_grants"(p_organization_id, least(promotional, charged_total));
	END IF;
	IF balance - charged_total < top_up_below THEN
		PERFORM "app"."claim_auto_top_up"(p_organization_id, p_now);
	END IF;
	-- Only a call over its hold can take the key past its budget (admission never lets the holds).
	UPDATE "app"."key_spend"
		SET "spent_nanos" = "spent_nanos" + cost_total,
			"reserved_nanos" = greatest("reserved_nanos" - reserved_total, 0)
		WHERE "organization_id" = p_organization_id AND "publishable_key_id" = p_key_id AND "period_start" = p_period_start;
	-- The key's spend row, locked just above, orders every settlement of the key's callers. Each
	-- allowance by its primary key: joined to the batch, the planner read every caller's row of the
	-- key for each settlement (all of a day's visitors of a key in a web page), with the balance locked.
	FOR i IN 1 .. coalesce(array_length(allowances, 1), 0) LOOP
		UPDATE "app"."caller_spend"
			SET "spent_nanos" = "spent_nanos" + allowance_costs[i], "reserved_nanos" = greatest("reserved_nanos" - allowance_helds[i], 0)
			WHERE "organization_id" = p_organization_id AND "publishable_key_id" = p_key_id AND "allowance" = allowances[i];
	END LOOP;
	RETURN QUERY SELECT * FROM unnest(completion_ids, overs, unpaids);
END;
$$;
