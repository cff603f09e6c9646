ALTER TABLE "webhook_deliveries" ADD COLUMN IF NOT EXISTS "lease_owner" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN IF NOT EXISTS "leased_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_deliveries_leased_idx" ON "webhook_deliveries" USING btree ("endpoint_id") WHERE "webhook_deliveries"."leased_until" is not null;
