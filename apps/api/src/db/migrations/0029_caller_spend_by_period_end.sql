-- The sweeper deletes callers' allowances of periods that ended before yesterday (every 30 seconds on
-- each api instance): by this index, rather than by reading every caller's row of every key, a
-- day's visitors of every key in a web page.
CREATE INDEX "caller_spend_ends_on" ON "app"."caller_spend" USING btree ("ends_on");
