-- Release: reservations given back, in one round trip: an upstream failure's hold (nothing is
-- charged), a stock's unused holds, expired ones. Those already gone (settled or swept) are
-- skipped (app.delete_holds). What they held is given back to the credit, the key's budget for its
-- period and each allowance of its caller the hold names (caller_spend).
--
-- One function call, not a transaction of several statements from the gateway: the organisation's
-- balance row, which every admission and settlement of its calls needs, stays locked for the
-- updates and the commit only, never across a round trip to a busy gateway. Rows are locked in
-- admission's order (credit_balances, key_spend, then caller_spend), each kind sorted, so two
-- releases and a settlement never deadlock.
CREATE OR REPLACE FUNCTION "app"."release_holds"(p_organization_ids uuid[], p_ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	balance_organizations uuid[];
	balance_amounts bigint[];
	spend_organizations uuid[];
	spend_keys uuid[];
	spend_periods date[];
	spend_amounts bigint[];
	allowance_organizations uuid[];
	allowance_keys uuid[];
	allowance_names text[];
	allowance_amounts bigint[];
BEGIN
	WITH released AS (
		SELECT * FROM "app"."delete_holds"(p_organization_ids, p_ids)
	), by_balance AS (
		SELECT released."organization_id", sum(released."amount_nanos")::bigint AS amount
		FROM released GROUP BY 1
	), by_spend AS (
		SELECT released."organization_id", released."publishable_key_id", released."period_start", sum(released."amount_nanos")::bigint AS amount
		FROM released GROUP BY 1, 2, 3
	), by_allowance AS (
		SELECT released."organization_id", released."publishable_key_id", allowance, sum(released."amount_nanos")::bigint AS amount
		FROM released CROSS JOIN unnest(released."allowances") AS allowance GROUP BY 1, 2, 3
	)
	SELECT
		(SELECT array_agg(b."organization_id" ORDER BY b."organization_id") FROM by_balance AS b),
		(SELECT array_agg(b.amount ORDER BY b."organization_id") FROM by_balance AS b),
		(SELECT array_agg(s."organization_id" ORDER BY s."publishable_key_id", s."period_start") FROM by_spend AS s),
		(SELECT array_agg(s."publishable_key_id" ORDER BY s."publishable_key_id", s."period_start") FROM by_spend AS s),
		(SELECT array_agg(s."period_start" ORDER BY s."publishable_key_id", s."period_start") FROM by_spend AS s),
		(SELECT array_agg(s.amount ORDER BY s."publishable_key_id", s."period_start") FROM by_spend AS s),
		(SELECT array_agg(a."organization_id" ORDER BY a."publishable_key_id", a.allowance COLLATE "C") FROM by_allowance AS a),
		(SELECT array_agg(a."publishable_key_id" ORDER BY a."publishable_key_id", a.allowance COLLATE "C") FROM by_allowance AS a),
		(SELECT array_agg(a.allowance ORDER BY a."publishable_key_id", a.allowance COLLATE "C") FROM by_allowance AS a),
		(SELECT array_agg(a.amount ORDER BY a."publishable_key_id", a.allowance COLLATE "C") FROM by_allowance AS a)
	INTO balance_organizations, balance_amounts, spend_organizations, spend_keys, spend_periods, spend_amounts,
		allowance_organizations, allowance_keys, allowance_names, allowance_amounts;

	FOR i IN 1 .. coalesce(array_length(balance_organizations, 1), 0) LOOP
		UPDATE "app"."credit_balances" SET "reserved_nanos" = greatest("reserved_nanos" - balance_amounts[i], 0)
			WHERE "organization_id" = balance_organizations[i];
	END LOOP;
	FOR i IN 1 .. coalesce(array_length(spend_keys, 1), 0) LOOP
		UPDATE "app"."key_spend" SET "reserved_nanos" = greatest("reserved_nanos" - spend_amounts[i], 0)
			WHERE "organization_id" = spend_organizations[i] AND "publishable_key_id" = spend_keys[i] AND "period_start" = spend_periods[i];
	END LOOP;
	FOR i IN 1 .. coalesce(array_length(allowance_keys, 1), 0) LOOP
		UPDATE "app"."caller_spend" SET "reserved_nanos" = greatest("reserved_nanos" - allowance_amounts[i], 0)
			WHERE "organization_id" = allowance_organizations[i] AND "publishable_key_id" = allowance_keys[i] AND "allowance" = allowance_names[i];
	END LOOP;
END;
$$;
