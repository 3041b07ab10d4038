CREATE SCHEMA "app";
--> statement-breakpoint
CREATE TABLE "app"."billing_customers" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"customer_id" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."chat_completions" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"publishable_key_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"model" text NOT NULL,
	"estimated_input_tokens" integer NOT NULL,
	"input_tokens" integer NOT NULL,
	"estimated_input_cost_nanos" bigint NOT NULL,
	"input_cost_nanos" bigint NOT NULL,
	"output_tokens" integer NOT NULL,
	"output_cost_nanos" bigint NOT NULL,
	"total_cost_nanos" bigint,
	"usage_estimated" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."checkout_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"status" text DEFAULT 'IN_PROGRESS' NOT NULL,
	"credit_nanos" bigint NOT NULL,
	"tax_nanos" bigint DEFAULT 0 NOT NULL,
	"client_secret_hash" text,
	"failure_message" text,
	"pending_outcome" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"completed_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "app"."credit_balances" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"balance_nanos" bigint DEFAULT 0 NOT NULL,
	"reserved_nanos" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_balances_balance_not_negative" CHECK ("app"."credit_balances"."balance_nanos" >= 0),
	CONSTRAINT "credit_balances_reserved_not_negative" CHECK ("app"."credit_balances"."reserved_nanos" >= 0)
);
--> statement-breakpoint
CREATE TABLE "app"."credit_entries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"amount_nanos" bigint NOT NULL,
	"balance_after_nanos" bigint NOT NULL,
	"reference" text,
	"reason" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."feedback" (
	"id" uuid PRIMARY KEY NOT NULL,
	"person_id" uuid NOT NULL,
	"from_email" text NOT NULL,
	"type" text NOT NULL,
	"description" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "feedback_type_known" CHECK (type in ('bug', 'feature_request', 'question', 'key_deletion', 'other'))
);
--> statement-breakpoint
CREATE TABLE "app"."key_rate_windows" (
	"publishable_key_id" text PRIMARY KEY NOT NULL,
	"window_start" timestamp (3) with time zone NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."key_spend" (
	"publishable_key_id" uuid NOT NULL,
	"period_start" date NOT NULL,
	"spent_nanos" bigint DEFAULT 0 NOT NULL,
	"reserved_nanos" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "key_spend_publishable_key_id_period_start_pk" PRIMARY KEY("publishable_key_id","period_start")
);
--> statement-breakpoint
CREATE TABLE "app"."organizations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."payment_events" (
	"provider" text NOT NULL,
	"id" text NOT NULL,
	"type" text NOT NULL,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_events_provider_id_pk" PRIMARY KEY("provider","id")
);
--> statement-breakpoint
CREATE TABLE "app"."persons" (
	"id" uuid PRIMARY KEY NOT NULL,
	"identity_id" uuid NOT NULL,
	"email" text NOT NULL,
	"organization_id" uuid NOT NULL,
	"system_admin" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."publishable_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"value" text NOT NULL,
	"spend_limit_nanos" bigint NOT NULL,
	"spend_limit_period" text DEFAULT 'monthly' NOT NULL,
	"allowed_origins" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "app"."reservations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"publishable_key_id" uuid NOT NULL,
	"period_start" date NOT NULL,
	"amount_nanos" bigint NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app"."secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."billing_customers" ADD CONSTRAINT "billing_customers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."chat_completions" ADD CONSTRAINT "chat_completions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."chat_completions" ADD CONSTRAINT "chat_completions_publishable_key_id_publishable_keys_id_fk" FOREIGN KEY ("publishable_key_id") REFERENCES "app"."publishable_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."checkout_sessions" ADD CONSTRAINT "checkout_sessions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."credit_balances" ADD CONSTRAINT "credit_balances_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."credit_entries" ADD CONSTRAINT "credit_entries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."feedback" ADD CONSTRAINT "feedback_person_id_persons_id_fk" FOREIGN KEY ("person_id") REFERENCES "app"."persons"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."key_spend" ADD CONSTRAINT "key_spend_publishable_key_id_publishable_keys_id_fk" FOREIGN KEY ("publishable_key_id") REFERENCES "app"."publishable_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."persons" ADD CONSTRAINT "persons_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."publishable_keys" ADD CONSTRAINT "publishable_keys_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."reservations" ADD CONSTRAINT "reservations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."reservations" ADD CONSTRAINT "reservations_publishable_key_id_publishable_keys_id_fk" FOREIGN KEY ("publishable_key_id") REFERENCES "app"."publishable_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_completions_organization_page" ON "app"."chat_completions" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "chat_completions_key_page" ON "app"."chat_completions" USING btree ("organization_id","publishable_key_id","created_at","id");--> statement-breakpoint
CREATE INDEX "checkout_sessions_organization" ON "app"."checkout_sessions" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "checkout_sessions_open" ON "app"."checkout_sessions" USING btree ("status","expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "credit_entries_once_per_reference" ON "app"."credit_entries" USING btree ("kind","reference");--> statement-breakpoint
CREATE INDEX "credit_entries_organization" ON "app"."credit_entries" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "feedback_created" ON "app"."feedback" USING btree ("created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "persons_identity" ON "app"."persons" USING btree ("identity_id");--> statement-breakpoint
CREATE INDEX "persons_email" ON "app"."persons" USING btree ("email");--> statement-breakpoint
CREATE INDEX "persons_created" ON "app"."persons" USING btree ("created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "publishable_keys_value" ON "app"."publishable_keys" USING btree ("value");--> statement-breakpoint
CREATE INDEX "publishable_keys_organization" ON "app"."publishable_keys" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "reservations_expiry" ON "app"."reservations" USING btree ("expires_at");