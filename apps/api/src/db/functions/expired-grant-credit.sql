-- What an organisation's grants past their expiry still hold, not yet taken by the expiry sweep
-- (issue #52: expiry is a hard line). It is no one's to spend: admission does not count it as free
-- and settlement does not charge calls to it. Callers ask only when the balance row has
-- promotional credit, so an organisation without grants pays nothing for this.
CREATE OR REPLACE FUNCTION "app"."expired_grant_credit"(p_organization_id uuid, p_now timestamptz) RETURNS bigint LANGUAGE sql STABLE AS $$
	SELECT coalesce(sum(g."remaining_nanos"), 0)::bigint FROM "app"."credit_grants" AS g
	WHERE g."organization_id" = p_organization_id AND g."remaining_nanos" > 0 AND g."expires_at" <= p_now;
$$;
