-- Teams (issue #21): an organisation has members with one role each, a person may belong to
-- several organisations, and persons.organization_id becomes the organisation the person is
-- working in now (the console's current organisation). Every person so far owns the one they had.
CREATE TABLE "app"."memberships" (
	"organization_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memberships_organization_id_person_id_pk" PRIMARY KEY("organization_id","person_id"),
	CONSTRAINT "memberships_role_known" CHECK ("role" in ('owner', 'admin', 'developer', 'billing'))
);
--> statement-breakpoint
ALTER TABLE "app"."memberships" ADD CONSTRAINT "memberships_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."memberships" ADD CONSTRAINT "memberships_person_id_persons_id_fk" FOREIGN KEY ("person_id") REFERENCES "app"."persons"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "memberships_person" ON "app"."memberships" USING btree ("person_id");--> statement-breakpoint
INSERT INTO "app"."memberships" ("organization_id", "person_id", "role", "created_at")
	SELECT "organization_id", "id", 'owner', "created_at" FROM "app"."persons";--> statement-breakpoint
-- An invitation to join an organisation: the link carries a token whose SHA-256 is kept here, so a
-- leaked database does not leak working links. One pending invitation per address and organisation;
-- accepting or revoking deletes it (the audit log keeps the history).
CREATE TABLE "app"."invitations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by" uuid NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "invitations_role_known" CHECK ("role" in ('owner', 'admin', 'developer', 'billing'))
);
--> statement-breakpoint
ALTER TABLE "app"."invitations" ADD CONSTRAINT "invitations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."invitations" ADD CONSTRAINT "invitations_invited_by_persons_id_fk" FOREIGN KEY ("invited_by") REFERENCES "app"."persons"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_organization_email" ON "app"."invitations" USING btree ("organization_id","email");--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_token_hash" ON "app"."invitations" USING btree ("token_hash");--> statement-breakpoint
-- Who did what and when in an organisation, written in the transaction of the change it records.
-- actor_person_id is null for what the system did (a payment provider's event, the operator CLI).
CREATE TABLE "app"."audit_entries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"actor_person_id" uuid,
	"actor_email" text NOT NULL,
	"action" text NOT NULL,
	"target" text NOT NULL,
	"changes" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app"."audit_entries" ADD CONSTRAINT "audit_entries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "app"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app"."audit_entries" ADD CONSTRAINT "audit_entries_actor_person_id_persons_id_fk" FOREIGN KEY ("actor_person_id") REFERENCES "app"."persons"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_entries_organization_page" ON "app"."audit_entries" USING btree ("organization_id","created_at","id");
