-- Admission: the holds of a batch of one key's calls, reserved in one round trip, all or none.
-- The hot rows (an organisation's balance, a key's spend) are locked after the holds are written
-- and stay locked only while the function runs and commits, never across a network round trip.
-- Lock order everywhere: credit_balances, then key_spend (app.settle_calls takes them in the same
-- order), so admission and settlement never deadlock.
--
-- Lock order: credit_balances, key_spend, then caller_spend.
--
-- Admission checks the key itself, so a gateway instance may keep the keys it has seen: every
-- call is admitted only if, when its reservation is taken, its key is live, the value it
-- presented still authenticates and the key was not edited since the row it was checked against
-- (its version: origins, models, limits).
-- Otherwise SQLSTATE MW401 (nothing reserved): the gateway reads the key again and decides afresh.
-- The budget is read from the key row here, never from what the caller last saw. SQLSTATE MW402
-- when the credit cannot hold the batch, MW429 when the key's budget cannot, MW430 (its message
-- the allowance's name) when one of the caller's allowances cannot: p_allowances names the
-- caller_spend rows the batch counts against (a client address's day, an end user's day or
-- month), with their limits and the last day of their periods. The limits are the key row's at
-- p_key_version, which the caller read and which is checked above.
--
-- An instance may reserve holds ahead of its calls (a stock, domain/metering/hold-stock.ts) and
-- admit calls from them without a round trip. Those holds are taken here like any other, with
-- every check, plus one: p_keep_free, what must stay free on both the credit and the key's budget
-- after them, so a stock is only ever a small part of what is free, and none is taken near
-- exhaustion, where every call is admitted on its own, exactly. Calls pass 0.
--
-- Promotional credit past its expiry that the sweep has not taken yet is not free (expired_grant_credit).
--
-- Admission commits durably, like every other transaction: a hold that a database crash took back
-- after its call was admitted would leave that call, which reaches the provider, with nothing to
-- settle, so it would go uncharged (the Postgres-restart soak test catches that).
CREATE OR REPLACE FUNCTION "app"."admit_calls"(
	p_organization_id uuid,
	p_key_id uuid,
	p_key_value text,
	p_key_version integer,
	p_now timestamptz,
	p_period_start date,
	p_reservation_ids uuid[],
	p_amounts bigint[],
	p_expires_at timestamptz,
	p_keep_free bigint DEFAULT 0,
	p_allowances text[] DEFAULT '{}',
	p_allowance_limits bigint[] DEFAULT '{}',
	p_allowance_ends date[] DEFAULT '{}'
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	total bigint := (SELECT coalesce(sum(amount), 0) FROM unnest(p_amounts) AS amount);
	spend_limit bigint;
BEGIN
	SELECT "spend_limit_nanos" INTO spend_limit
		FROM "app"."publishable_keys"
		WHERE "organization_id" = p_organization_id AND "id" = p_key_id AND "deleted_at" IS NULL AND "version" = p_key_version
			AND ("value" = p_key_value OR ("previous_value" = p_key_value AND "previous_value_expires_at" > p_now));
	IF NOT FOUND THEN
		RAISE EXCEPTION 'key changed' USING ERRCODE = 'MW401';
	END IF;
	-- The holds first, before any hot row is locked: the organisation's balance row stays locked for
	-- the checks and the commit only. A refusal below undoes them with the rest of the statement.
	INSERT INTO "app"."reservations" ("id", "organization_id", "publishable_key_id", "period_start", "amount_nanos", "expires_at", "allowances")
		SELECT id, p_organization_id, p_key_id, p_period_start, amount, p_expires_at, nullif(p_allowances, '{}')
		FROM unnest(p_reservation_ids, p_amounts) AS batch(id, amount);
	UPDATE "app"."credit_balances"
		SET "reserved_nanos" = "reserved_nanos" + total
		WHERE "organization_id" = p_organization_id
			AND "balance_nanos" - "reserved_nanos"
				- CASE WHEN "promotional_nanos" > 0 THEN "app"."expired_grant_credit"(p_organization_id, p_now) ELSE 0 END
				>= total + p_keep_free;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'insufficient credit' USING ERRCODE = 'MW402';
	END IF;
	INSERT INTO "app"."key_spend" AS s ("organization_id", "publishable_key_id", "period_start", "reserved_nanos")
		SELECT p_organization_id, p_key_id, p_period_start, total WHERE total + p_keep_free <= spend_limit
		ON CONFLICT ("organization_id", "publishable_key_id", "period_start") DO UPDATE
			SET "reserved_nanos" = s."reserved_nanos" + excluded."reserved_nanos"
			WHERE s."spent_nanos" + s."reserved_nanos" + excluded."reserved_nanos" + p_keep_free <= spend_limit;
	IF NOT FOUND THEN
		-- Raising undoes the credit reservation above with the rest of the statement.
		RAISE EXCEPTION 'key budget exhausted' USING ERRCODE = 'MW429';
	END IF;
	FOR i IN 1 .. coalesce(array_length(p_allowances, 1), 0) LOOP
		INSERT INTO "app"."caller_spend" AS c ("organization_id", "publishable_key_id", "allowance", "ends_on", "reserved_nanos")
			SELECT p_organization_id, p_key_id, p_allowances[i], p_allowance_ends[i], total WHERE total + p_keep_free <= p_allowance_limits[i]
			ON CONFLICT ("organization_id", "publishable_key_id", "allowance") DO UPDATE
				SET "reserved_nanos" = c."reserved_nanos" + excluded."reserved_nanos"
				WHERE c."spent_nanos" + c."reserved_nanos" + excluded."reserved_nanos" + p_keep_free <= p_allowance_limits[i];
		IF NOT FOUND THEN
			RAISE EXCEPTION USING ERRCODE = 'MW430', MESSAGE = p_allowances[i];
		END IF;
	END LOOP;
END;
$$;
