-- Providers as data (issue #24): the provider (its id in PROVIDERS_FILE; `upstream` for
-- UPSTREAM_BASE_URL, `demo` for the built-in model) that served each call. Null on rows from
-- before it was recorded.
ALTER TABLE "app"."chat_completions" ADD COLUMN "provider" text;
