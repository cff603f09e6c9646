CREATE TABLE "installation" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "installation_singleton_check" CHECK ("installation"."singleton")
);
--> statement-breakpoint
-- The installation's one row and its random id (the namespace of its rate-limit counters in Redis).
INSERT INTO "installation" DEFAULT VALUES;
--> statement-breakpoint
-- A new key is announced too: instances forget the digests of keys they remember as bad
-- (src/keys/key-cache.ts), so a key works on every instance the moment it is created.
CREATE TRIGGER api_keys_created AFTER INSERT ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION notify_api_keys_changed();
