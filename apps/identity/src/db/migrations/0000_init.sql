CREATE SCHEMA "identity";
--> statement-breakpoint
CREATE TABLE "identity"."credentials" (
	"identity_id" uuid NOT NULL,
	"type" text NOT NULL,
	"identifier" text NOT NULL,
	"config" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credentials_identity_id_type_pk" PRIMARY KEY("identity_id","type")
);
--> statement-breakpoint
CREATE TABLE "identity"."flow_codes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"flow_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"address" text NOT NULL,
	"identity_id" uuid,
	"hmac" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."flows" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"type" text DEFAULT 'browser' NOT NULL,
	"state" text NOT NULL,
	"csrf_token" text NOT NULL,
	"request_url" text NOT NULL,
	"return_to" text,
	"active" text,
	"identity_id" uuid,
	"requested_aal" text,
	"refresh" boolean DEFAULT false NOT NULL,
	"ui" json NOT NULL,
	"context" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"submissions" integer DEFAULT 0 NOT NULL,
	"issued_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."identities" (
	"id" uuid PRIMARY KEY NOT NULL,
	"schema_id" text DEFAULT 'default' NOT NULL,
	"state" text DEFAULT 'active' NOT NULL,
	"state_changed_at" timestamp (3) with time zone,
	"traits" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"window_start" timestamp (3) with time zone NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."recovery_addresses" (
	"id" uuid PRIMARY KEY NOT NULL,
	"identity_id" uuid NOT NULL,
	"value" text NOT NULL,
	"via" text DEFAULT 'email' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"identity_id" uuid NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"aal" text NOT NULL,
	"authentication_methods" jsonb NOT NULL,
	"devices" jsonb NOT NULL,
	"issued_at" timestamp (3) with time zone NOT NULL,
	"authenticated_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."verifiable_addresses" (
	"id" uuid PRIMARY KEY NOT NULL,
	"identity_id" uuid NOT NULL,
	"value" text NOT NULL,
	"via" text DEFAULT 'email' NOT NULL,
	"verified" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"verified_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "identity"."credentials" ADD CONSTRAINT "credentials_identity_id_identities_id_fk" FOREIGN KEY ("identity_id") REFERENCES "identity"."identities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."flow_codes" ADD CONSTRAINT "flow_codes_flow_id_flows_id_fk" FOREIGN KEY ("flow_id") REFERENCES "identity"."flows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."flow_codes" ADD CONSTRAINT "flow_codes_identity_id_identities_id_fk" FOREIGN KEY ("identity_id") REFERENCES "identity"."identities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."flows" ADD CONSTRAINT "flows_identity_id_identities_id_fk" FOREIGN KEY ("identity_id") REFERENCES "identity"."identities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."recovery_addresses" ADD CONSTRAINT "recovery_addresses_identity_id_identities_id_fk" FOREIGN KEY ("identity_id") REFERENCES "identity"."identities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."sessions" ADD CONSTRAINT "sessions_identity_id_identities_id_fk" FOREIGN KEY ("identity_id") REFERENCES "identity"."identities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."verifiable_addresses" ADD CONSTRAINT "verifiable_addresses_identity_id_identities_id_fk" FOREIGN KEY ("identity_id") REFERENCES "identity"."identities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "credentials_password_identifier" ON "identity"."credentials" USING btree ("identifier") WHERE "identity"."credentials"."type" = 'password';--> statement-breakpoint
CREATE INDEX "flow_codes_flow" ON "identity"."flow_codes" USING btree ("flow_id");--> statement-breakpoint
CREATE INDEX "flow_codes_hmac" ON "identity"."flow_codes" USING btree ("hmac");--> statement-breakpoint
CREATE INDEX "flows_expires" ON "identity"."flows" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "recovery_addresses_value" ON "identity"."recovery_addresses" USING btree ("value");--> statement-breakpoint
CREATE INDEX "recovery_addresses_identity" ON "identity"."recovery_addresses" USING btree ("identity_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_token_hash" ON "identity"."sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "sessions_identity" ON "identity"."sessions" USING btree ("identity_id");--> statement-breakpoint
CREATE UNIQUE INDEX "verifiable_addresses_value" ON "identity"."verifiable_addresses" USING btree ("value");--> statement-breakpoint
CREATE INDEX "verifiable_addresses_identity" ON "identity"."verifiable_addresses" USING btree ("identity_id");