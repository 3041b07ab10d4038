-- Usage is charged to the ledger once per settlement, not once per completion: the calls of a key
-- settled together share one usage_charge entry, and each completion names it. Entries of
-- completions settled before keep their reference (the completion's id) and no usage_charge_id.
ALTER TABLE "app"."chat_completions" ADD COLUMN "usage_charge_id" uuid;
