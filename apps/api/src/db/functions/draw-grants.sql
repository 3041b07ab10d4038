-- Draws p_amount_nanos from an organisation's promotional grants, soonest expiry first (issue #22).
-- The caller holds the organisation's balance row lock, which every change to its grants takes
-- first, and moves the row's promotional_nanos by the same amount in its own update.
CREATE OR REPLACE FUNCTION "app"."draw_grants"(p_organization_id uuid, p_amount_nanos bigint) RETURNS void LANGUAGE sql AS $$
	WITH ordered AS (
		SELECT g."id", coalesce(sum(g."remaining_nanos") OVER (
			ORDER BY g."expires_at", g."id" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
		), 0) AS drawn_before
		FROM "app"."credit_grants" AS g
		WHERE g."organization_id" = p_organization_id AND g."remaining_nanos" > 0
	)
	UPDATE "app"."credit_grants" AS g
		SET "remaining_nanos" = g."remaining_nanos" - least(g."remaining_nanos", p_amount_nanos - o.drawn_before)
		FROM ordered AS o
		WHERE g."organization_id" = p_organization_id AND g."id" = o."id" AND o.drawn_before < p_amount_nanos;
$$;
