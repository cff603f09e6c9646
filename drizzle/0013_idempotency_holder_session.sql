ALTER TABLE "idempotency_keys" ADD COLUMN "holder_pid" integer;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "holder_server" text;