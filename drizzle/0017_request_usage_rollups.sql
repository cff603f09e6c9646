CREATE TABLE "request_usage" (
	"hour" timestamp with time zone NOT NULL,
	"company_id" integer NOT NULL,
	"api_key_id" integer NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL,
	"status_2xx" integer DEFAULT 0 NOT NULL,
	"status_3xx" integer DEFAULT 0 NOT NULL,
	"status_4xx" integer DEFAULT 0 NOT NULL,
	"status_5xx" integer DEFAULT 0 NOT NULL,
	"rate_limited" integer DEFAULT 0 NOT NULL,
	"writes" integer DEFAULT 0 NOT NULL,
	"deprecated" integer DEFAULT 0 NOT NULL,
	"latency" integer[] NOT NULL,
	CONSTRAINT "request_usage_company_id_api_key_id_hour_pk" PRIMARY KEY("company_id","api_key_id","hour")
);
--> statement-breakpoint
CREATE TABLE "request_usage_codes" (
	"hour" timestamp with time zone NOT NULL,
	"company_id" integer NOT NULL,
	"api_key_id" integer NOT NULL,
	"kind" text NOT NULL,
	"code" text NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "request_usage_codes_company_id_api_key_id_hour_kind_code_pk" PRIMARY KEY("company_id","api_key_id","hour","kind","code")
);
--> statement-breakpoint
CREATE INDEX "request_usage_company_hour_idx" ON "request_usage" USING btree ("company_id","hour");--> statement-breakpoint
CREATE INDEX "request_usage_hour_idx" ON "request_usage" USING btree ("hour");--> statement-breakpoint
CREATE INDEX "request_usage_codes_company_hour_idx" ON "request_usage_codes" USING btree ("company_id","hour");--> statement-breakpoint
CREATE INDEX "request_usage_codes_hour_idx" ON "request_usage_codes" USING btree ("hour");--> statement-breakpoint
CREATE INDEX "request_log_company_route_at_idx" ON "request_log" USING btree ("company_id","route","at");--> statement-breakpoint
CREATE INDEX "request_log_company_error_code_at_idx" ON "request_log" USING btree ("company_id","error_code","at") WHERE "request_log"."error_code" is not null;--> statement-breakpoint
CREATE INDEX "request_log_company_failed_idx" ON "request_log" USING btree ("company_id","at") WHERE "request_log"."status" >= 500;--> statement-breakpoint
-- hand-written below: keep when regenerating
-- The rollups of the rows already in the log (the writer keeps them from now on). Also called by
-- the bench after it loads its request log through SQL. The bounds are LATENCY_BOUNDS_US of
-- src/request-log/usage.ts (width_bucket: the number of bounds <= the duration).
CREATE OR REPLACE FUNCTION request_usage_rebuild() RETURNS void LANGUAGE sql AS $$
  DELETE FROM request_usage;
  DELETE FROM request_usage_codes;
  WITH per_bucket AS (
    SELECT date_trunc('hour', at) AS hour, company_id, api_key_id,
      width_bucket(duration_us, ARRAY[500, 1000, 1500, 2000, 3000, 4000, 5000, 7500, 10000, 15000, 20000,
        30000, 40000, 50000, 75000, 100000, 150000, 200000, 300000, 500000, 750000, 1000000, 2000000,
        5000000, 10000000, 30000000, 60000000]) AS bucket,
      count(*) AS requests,
      count(*) FILTER (WHERE status BETWEEN 200 AND 299) AS s2,
      count(*) FILTER (WHERE status BETWEEN 300 AND 399) AS s3,
      count(*) FILTER (WHERE status BETWEEN 400 AND 499) AS s4,
      count(*) FILTER (WHERE status BETWEEN 500 AND 599) AS s5,
      count(*) FILTER (WHERE status = 429) AS limited,
      count(*) FILTER (WHERE method IN ('POST', 'PUT')) AS writes,
      count(*) FILTER (WHERE jsonb_array_length(coalesce(deprecated_use, '[]'::jsonb)) > 0) AS deprecated
    FROM request_log GROUP BY 1, 2, 3, 4),
  hours AS (
    SELECT hour, company_id, api_key_id, sum(requests) AS requests, sum(s2) AS s2, sum(s3) AS s3,
      sum(s4) AS s4, sum(s5) AS s5, sum(limited) AS limited, sum(writes) AS writes, sum(deprecated) AS deprecated
    FROM per_bucket GROUP BY 1, 2, 3),
  latency AS (
    SELECT h.hour, h.company_id, h.api_key_id, array_agg(coalesce(p.requests, 0)::integer ORDER BY g) AS latency
    FROM hours h CROSS JOIN generate_series(0, 27) AS g
    LEFT JOIN per_bucket p ON p.hour = h.hour AND p.company_id = h.company_id
      AND p.api_key_id = h.api_key_id AND p.bucket = g
    GROUP BY 1, 2, 3)
  INSERT INTO request_usage (hour, company_id, api_key_id, requests, status_2xx, status_3xx, status_4xx,
    status_5xx, rate_limited, writes, deprecated, latency)
  SELECT h.hour, h.company_id, h.api_key_id, h.requests, h.s2, h.s3, h.s4, h.s5, h.limited, h.writes, h.deprecated,
    l.latency
  FROM hours h JOIN latency l USING (hour, company_id, api_key_id);
  INSERT INTO request_usage_codes (hour, company_id, api_key_id, kind, code, count)
  SELECT date_trunc('hour', at), company_id, api_key_id, 'error', error_code, count(*)
  FROM request_log WHERE error_code IS NOT NULL GROUP BY 1, 2, 3, 5;
  INSERT INTO request_usage_codes (hour, company_id, api_key_id, kind, code, count)
  SELECT date_trunc('hour', at), company_id, api_key_id, 'deprecated', item, count(*)
  FROM request_log, jsonb_array_elements_text(deprecated_use) AS item
  WHERE deprecated_use IS NOT NULL GROUP BY 1, 2, 3, 5;
$$;
--> statement-breakpoint
SELECT request_usage_rebuild();
