CREATE TABLE "audit_log" (
	"id" serial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"command" text NOT NULL,
	"actor" text NOT NULL,
	"company_id" integer,
	"object_type" text,
	"object_id" integer,
	"outcome" text NOT NULL,
	"detail" jsonb NOT NULL,
	CONSTRAINT "audit_log_outcome_check" CHECK ("audit_log"."outcome" in ('ok', 'refused', 'failed'))
);
--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "audit_log" USING btree ("at","id");--> statement-breakpoint
CREATE INDEX "audit_log_company_at_idx" ON "audit_log" USING btree ("company_id","at","id");