-- Draws p_amount_nanos from an organisation's promotional grants, soonest expiry first (issue #22),
-- among those expiring after p_expiring_after: usage passes the moment it is charged, so it never
-- draws on a grant past its expiry (issue #52); a take-back passes nothing and draws on any, an
-- expired one first. The caller holds the organisation's balance row lock, which every change to
-- its grants takes first, and moves the row's promotional_nanos by the same amount in its own update.
CREATE OR REPLACE FUNCTION "app"."draw_grants"(p_organization_id uuid, p_amount_nanos bigint, p_expiring_after timestamptz DEFAULT '-infinity') RETURNS void LANGUAGE sql AS $$
	WITH ordered AS (
		SELECT g."id", coalesce(sum(g."remaining_nanos") OVER (
			ORDER BY g."expires_at", g."id" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
		), 0) AS drawn_before
		FROM "app"."credit_grants" AS g
		WHERE g."organization_id" = p_organization_id AND g."remaining_nanos" > 0 AND g."expires_at" > p_expiring_after
	)
	UPDATE "app"."credit_grants" AS g
		SET "remaining_nanos" = g."remaining_nanos" - least(g."remaining_nanos", p_amount_nanos - o.drawn_before)
		FROM ordered AS o
		WHERE g."organization_id" = p_organization_id AND g."id" = o."id" AND o.drawn_before < p_amount_nanos;
$$;
