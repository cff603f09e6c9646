CREATE TABLE "instances" (
	"id" uuid PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"acked_version" bigint DEFAULT 0 NOT NULL,
	"acked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "key_changes" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "key_changes_singleton_check" CHECK ("key_changes"."singleton")
);
--> statement-breakpoint
-- hand-written below: keep when regenerating
-- The one row of key_changes, then the announcement of a change to keys or companies carries its
-- version: raised under the row's lock, so versions commit in order, and kept for the rest of the
-- transaction (invoicing.key_change) so that the operation that made it knows what to wait for.
INSERT INTO "key_changes" DEFAULT VALUES;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION notify_api_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed bigint;
BEGIN
  UPDATE key_changes SET version = version + 1 RETURNING version INTO changed;
  PERFORM set_config('invoicing.key_change', changed::text, true);
  PERFORM pg_notify('api_keys_changed', changed::text);
  RETURN NULL;
END $$;
