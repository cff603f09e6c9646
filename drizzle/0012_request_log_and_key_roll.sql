-- The request log (src/request-log/): one row per API request of a known key, kept 30 days.
CREATE TABLE IF NOT EXISTS "request_log" (
	"at" timestamp with time zone NOT NULL,
	"company_id" integer NOT NULL,
	"api_key_id" integer NOT NULL,
	"method" text NOT NULL,
	"route" text NOT NULL,
	"status" smallint NOT NULL,
	"error_code" text,
	"request_id" text NOT NULL,
	"idempotency_key" text,
	"replayed" boolean DEFAULT false NOT NULL,
	"duration_us" integer NOT NULL,
	"client_ip" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "request_log_request_id_idx" ON "request_log" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "request_log_company_at_idx" ON "request_log" USING btree ("company_id","at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "request_log_api_key_at_idx" ON "request_log" USING btree ("api_key_id","at","status");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "request_log_company_errors_idx" ON "request_log" USING btree ("company_id","at") WHERE "request_log"."status" >= 400;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "request_log_at_idx" ON "request_log" USING btree ("at");--> statement-breakpoint
-- `keys roll`: the key that replaced this one (which then expires at the end of its grace).
ALTER TABLE "api_keys" ADD COLUMN IF NOT EXISTS "replaced_by_key_id" integer;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_replaced_by_key_id_api_keys_id_fk" FOREIGN KEY ("replaced_by_key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- `requests show`: the attempts of a delivery.
CREATE INDEX IF NOT EXISTS "webhook_attempts_delivery_idx" ON "webhook_attempts" USING btree ("delivery_id","id");
