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
	released "app"."reservations"[] := ARRAY(SELECT h FROM "app"."delete_holds"(p_organization_ids, p_ids) AS h);
	given_back record;
BEGIN
	FOR given_back IN
		SELECT h."organization_id", sum(h."amount_nanos")::bigint AS amount
		FROM unnest(released) AS h GROUP BY 1 ORDER BY 1
	LOOP
		UPDATE "app"."credit_balances" SET "reserved_nanos" = greatest("reserved_nanos" - given_back.amount, 0)
			WHERE "organization_id" = given_back."organization_id";
	END LOOP;
	FOR given_back IN
		SELECT h."organization_id", h."publishable_key_id", h."period_start", sum(h."amount_nanos")::bigint AS amount
		FROM unnest(released) AS h GROUP BY 1, 2, 3 ORDER BY 2, 3
	LOOP
		UPDATE "app"."key_spend" SET "reserved_nanos" = greatest("reserved_nanos" - given_back.amount, 0)
			WHERE "organization_id" = given_back."organization_id" AND "publishable_key_id" = given_back."publishable_key_id"
				AND "period_start" = given_back."period_start";
	END LOOP;
	FOR given_back IN
		SELECT h."organization_id", h."publishable_key_id", allowance, sum(h."amount_nanos")::bigint AS amount
		FROM unnest(released) AS h CROSS JOIN unnest(h."allowances") AS allowance GROUP BY 1, 2, 3 ORDER BY 2, allowance COLLATE "C"
	LOOP
		UPDATE "app"."caller_spend" SET "reserved_nanos" = greatest("reserved_nanos" - given_back.amount, 0)
			WHERE "organization_id" = given_back."organization_id" AND "publishable_key_id" = given_back."publishable_key_id"
				AND "allowance" = given_back.allowance;
	END LOOP;
END;
$$;
