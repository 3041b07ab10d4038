-- An invitation is found by its organisation (docs/scaling.md, distribution.ts): the mailed token is
-- `<organization id>.<32 random bytes>`, accepting looks for (organization_id, token_hash), and
-- resending, revoking and accepting name the invitation by (organization_id, id). Its key becomes
-- (organization_id, id) and its token hash is unique within its organisation.
-- The once-only guarantees are as strong as before:
--   a link still opens one invitation, once: the hash is of the whole token, organisation included,
--   and unique within that organisation, so a token finds at most one row; accepting locks that row
--   and deletes it in the same transaction, so a second click finds nothing.
--   invitations_organization_email (one pending invitation per address and organisation) is
--   unchanged, and ids stay random uuids.
-- A link mailed before this change has a token without the organisation, so nothing can find its
-- invitation any more without a lookup across organisations: it answers as an unknown or expired
-- link does (404, "Ask for a new invitation"). Its invitation is left as it is, listed as pending
-- until it expires, so Resend mails a link that works (or Revoke, or inviting again once expired).
ALTER TABLE "app"."invitations" DROP CONSTRAINT "invitations_pkey";--> statement-breakpoint
ALTER TABLE "app"."invitations" ADD CONSTRAINT "invitations_organization_id_id_pk" PRIMARY KEY("organization_id","id");--> statement-breakpoint
DROP INDEX "app"."invitations_token_hash";--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_token_hash" ON "app"."invitations" USING btree ("organization_id","token_hash");
