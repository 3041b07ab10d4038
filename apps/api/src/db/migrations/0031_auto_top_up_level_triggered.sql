-- Issue #52: auto top-up is level-triggered. auto_top_up_below_nanos is now the threshold whenever
-- auto top-up is on (null when off), no longer disarmed by a crossing and re-armed by credit: a
-- settlement that leaves the balance below it, a settings save and the workers' sweep each claim a
-- charge whenever one is due (app.auto_top_up_state). Organisations left disarmed by the old rule
-- are armed here, so their due charge is made by the first sweep; the sweep finds the balances
-- below their threshold through the partial index.
UPDATE "app"."credit_balances" AS b SET "auto_top_up_below_nanos" = a."threshold_nanos"
	FROM "app"."auto_top_ups" AS a
	WHERE a."organization_id" = b."organization_id" AND a."enabled" AND a."payment_method_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "credit_balances_auto_top_up_on" ON "app"."credit_balances" USING btree ("organization_id") WHERE "auto_top_up_below_nanos" IS NOT NULL;
