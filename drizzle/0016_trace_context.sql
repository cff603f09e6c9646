ALTER TABLE "request_log" ADD COLUMN "trace_id" text;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "traceparent" text;--> statement-breakpoint
CREATE INDEX "request_log_trace_id_idx" ON "request_log" USING btree ("trace_id") WHERE "request_log"."trace_id" is not null;