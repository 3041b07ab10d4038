-- The credit history (issue #22) lists an organisation's ledger entries newest or oldest first,
-- without its usage charges (the chat completions list those) and without the debt payments it
-- folds into the line that paid them: without this index a page would walk past every usage charge.
CREATE INDEX "credit_entries_history" ON "app"."credit_entries" USING btree ("organization_id","created_at","id") WHERE "credit_entries"."kind" NOT IN ('usage_charge', 'owed_payment');
