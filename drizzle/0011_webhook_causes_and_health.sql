ALTER TABLE "webhook_events" ADD COLUMN IF NOT EXISTS "request_id" text;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN IF NOT EXISTS "only_endpoint_id" integer;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_only_endpoint_company_fk" FOREIGN KEY ("only_endpoint_id","company_id") REFERENCES "public"."webhook_endpoints"("id","company_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_attempts_endpoint_outcome_idx" ON "webhook_attempts" USING btree ("endpoint_id","succeeded","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_events_company_created_idx" ON "webhook_events" USING btree ("company_id","created_at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_events_request_id_idx" ON "webhook_events" USING btree ("request_id") WHERE "webhook_events"."request_id" is not null;--> statement-breakpoint
-- Every event carries its cause since this migration. The few recorded before it (and so their
-- resends) get one that says it is not known; a receiver handles such an event (never an echo).
UPDATE "webhook_events" SET "payload" = left("payload", -1) || ',"cause":{"kind":"system","name":"unknown"}}' WHERE ("payload"::jsonb -> 'cause') IS NULL;
