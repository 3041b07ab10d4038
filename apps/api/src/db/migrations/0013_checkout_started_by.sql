-- Who started a top-up (issue #21): the audit log names them as the one who added the credit once
-- the payment succeeds. Null for top-ups started before it was kept; the log names the system then.
ALTER TABLE "app"."checkout_sessions" ADD COLUMN "started_by" uuid;--> statement-breakpoint
ALTER TABLE "app"."checkout_sessions" ADD CONSTRAINT "checkout_sessions_started_by_persons_id_fk" FOREIGN KEY ("started_by") REFERENCES "app"."persons"("id") ON DELETE no action ON UPDATE no action;
