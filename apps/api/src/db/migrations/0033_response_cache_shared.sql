-- Issue #52: a key's response cache answers each end user from their own requests only, unless its
-- owner shares it across end users (which lets one end user receive what another's request
-- produced, and so learn that someone asked it). Off for every key, as before.
ALTER TABLE "app"."publishable_keys" ADD COLUMN "response_cache_shared" boolean DEFAULT false NOT NULL;
