CREATE TABLE "customer_counts" (
	"company_id" integer NOT NULL,
	"type" text NOT NULL,
	"updated_on" date NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "customer_counts_company_id_type_updated_on_pk" PRIMARY KEY("company_id","type","updated_on")
);
--> statement-breakpoint
CREATE TABLE "invoice_counts" (
	"company_id" integer NOT NULL,
	"status" text NOT NULL,
	"invoice_date" date NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "invoice_counts_company_id_status_invoice_date_pk" PRIMARY KEY("company_id","status","invoice_date")
);
--> statement-breakpoint
CREATE TABLE "invoice_update_counts" (
	"company_id" integer NOT NULL,
	"status" text NOT NULL,
	"updated_on" date NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "invoice_update_counts_company_id_status_updated_on_pk" PRIMARY KEY("company_id","status","updated_on")
);
--> statement-breakpoint
CREATE TABLE "product_counts" (
	"company_id" integer NOT NULL,
	"type" text NOT NULL,
	"is_for_sale" boolean NOT NULL,
	"updated_on" date NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "product_counts_company_id_type_is_for_sale_updated_on_pk" PRIMARY KEY("company_id","type","is_for_sale","updated_on")
);
--> statement-breakpoint
CREATE TABLE "receipt_counts" (
	"company_id" integer NOT NULL,
	"payment_date" date NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "receipt_counts_company_id_payment_date_pk" PRIMARY KEY("company_id","payment_date")
);
--> statement-breakpoint
-- Searches look in one stored, folded text per row (search_text, below) instead of folding each
-- column of every candidate: the per-column trigram indexes of 0004 give way to one on that text.
-- Dropped first, so that adding the column (a rewrite of both tables) does not rebuild them.
DROP INDEX IF EXISTS "customers_search_name_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "customers_search_email_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "customers_search_nuit_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "customers_search_phone_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "products_search_name_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "products_search_code_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "products_search_sku_idx";--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "search_text" text GENERATED ALWAYS AS (search_fold(coalesce("name", '') || chr(10) || coalesce("email", '') || chr(10) || coalesce("nuit", '') || chr(10) || coalesce("phone", ''))) STORED;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "search_text" text GENERATED ALWAYS AS (search_fold(coalesce("name", '') || chr(10) || coalesce("product_code", '') || chr(10) || coalesce("sku", ''))) STORED;--> statement-breakpoint
CREATE INDEX "customers_search_idx" ON "customers" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "products_search_idx" ON "products" USING gin ("search_text" gin_trgm_ops);
--> statement-breakpoint
-- Hand-written below: what drizzle-kit cannot express.
-- The statement triggers of 0004 that raise data_versions on every write to customers, products,
-- invoices and payments now also move the counters above, in the same transaction and the same
-- function (renamed: it does more than bump). The version comes first: its row lock (one per
-- company, taken in company order) makes the writers of a company take turns, so counter rows are
-- never locked in two orders by two transactions (no deadlock), and `count = count + delta` on a
-- locked row never loses an update. Only what the lists filter on is counted; an update that
-- changes none of it moves nothing (HAVING sum(delta) <> 0).
ALTER FUNCTION bump_data_version() RENAME TO track_listed_rows;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION track_listed_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO data_versions AS v (company_id, version)
      SELECT DISTINCT coalesce(company_id, 0), 1 FROM new_rows ORDER BY 1
      ON CONFLICT (company_id) DO UPDATE SET version = v.version + 1;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO data_versions AS v (company_id, version)
      SELECT company_id, 1 FROM (
        SELECT coalesce(company_id, 0) AS company_id FROM new_rows
        UNION SELECT coalesce(company_id, 0) FROM old_rows) changed ORDER BY 1
      ON CONFLICT (company_id) DO UPDATE SET version = v.version + 1;
  ELSE
    INSERT INTO data_versions AS v (company_id, version)
      SELECT DISTINCT coalesce(company_id, 0), 1 FROM old_rows ORDER BY 1
      ON CONFLICT (company_id) DO UPDATE SET version = v.version + 1;
  END IF;

  IF TG_TABLE_NAME = 'invoices' THEN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO invoice_counts AS c (company_id, status, invoice_date, count)
        SELECT company_id, status, invoice_date, count(*) FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, status, invoice_date) DO UPDATE SET count = c.count + excluded.count;
      INSERT INTO invoice_update_counts AS c (company_id, status, updated_on, count)
        SELECT company_id, status, (updated_at AT TIME ZONE 'UTC')::date, count(*) FROM new_rows
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, status, updated_on) DO UPDATE SET count = c.count + excluded.count;
    ELSIF TG_OP = 'UPDATE' THEN
      INSERT INTO invoice_counts AS c (company_id, status, invoice_date, count)
        SELECT company_id, status, invoice_date, sum(delta) FROM (
          SELECT company_id, status, invoice_date, 1 AS delta FROM new_rows
          UNION ALL SELECT company_id, status, invoice_date, -1 FROM old_rows) changed
        GROUP BY 1, 2, 3 HAVING sum(delta) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, status, invoice_date) DO UPDATE SET count = c.count + excluded.count;
      INSERT INTO invoice_update_counts AS c (company_id, status, updated_on, count)
        SELECT company_id, status, updated_on, sum(delta) FROM (
          SELECT company_id, status, (updated_at AT TIME ZONE 'UTC')::date AS updated_on, 1 AS delta FROM new_rows
          UNION ALL SELECT company_id, status, (updated_at AT TIME ZONE 'UTC')::date, -1 FROM old_rows) changed
        GROUP BY 1, 2, 3 HAVING sum(delta) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, status, updated_on) DO UPDATE SET count = c.count + excluded.count;
    ELSE
      INSERT INTO invoice_counts AS c (company_id, status, invoice_date, count)
        SELECT company_id, status, invoice_date, -count(*) FROM old_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, status, invoice_date) DO UPDATE SET count = c.count + excluded.count;
      INSERT INTO invoice_update_counts AS c (company_id, status, updated_on, count)
        SELECT company_id, status, (updated_at AT TIME ZONE 'UTC')::date, -count(*) FROM old_rows
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, status, updated_on) DO UPDATE SET count = c.count + excluded.count;
    END IF;

  ELSIF TG_TABLE_NAME = 'customers' THEN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO customer_counts AS c (company_id, type, updated_on, count)
        SELECT coalesce(company_id, 0), type, (updated_at AT TIME ZONE 'UTC')::date, count(*) FROM new_rows
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, type, updated_on) DO UPDATE SET count = c.count + excluded.count;
    ELSIF TG_OP = 'UPDATE' THEN
      INSERT INTO customer_counts AS c (company_id, type, updated_on, count)
        SELECT company_id, type, updated_on, sum(delta) FROM (
          SELECT coalesce(company_id, 0) AS company_id, type, (updated_at AT TIME ZONE 'UTC')::date AS updated_on,
            1 AS delta FROM new_rows
          UNION ALL SELECT coalesce(company_id, 0), type, (updated_at AT TIME ZONE 'UTC')::date, -1 FROM old_rows) changed
        GROUP BY 1, 2, 3 HAVING sum(delta) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, type, updated_on) DO UPDATE SET count = c.count + excluded.count;
    ELSE
      INSERT INTO customer_counts AS c (company_id, type, updated_on, count)
        SELECT coalesce(company_id, 0), type, (updated_at AT TIME ZONE 'UTC')::date, -count(*) FROM old_rows
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (company_id, type, updated_on) DO UPDATE SET count = c.count + excluded.count;
    END IF;

  ELSIF TG_TABLE_NAME = 'products' THEN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO product_counts AS c (company_id, type, is_for_sale, updated_on, count)
        SELECT company_id, type, is_for_sale, (updated_at AT TIME ZONE 'UTC')::date, count(*) FROM new_rows
        GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
        ON CONFLICT (company_id, type, is_for_sale, updated_on) DO UPDATE SET count = c.count + excluded.count;
    ELSIF TG_OP = 'UPDATE' THEN
      INSERT INTO product_counts AS c (company_id, type, is_for_sale, updated_on, count)
        SELECT company_id, type, is_for_sale, updated_on, sum(delta) FROM (
          SELECT company_id, type, is_for_sale, (updated_at AT TIME ZONE 'UTC')::date AS updated_on, 1 AS delta
            FROM new_rows
          UNION ALL SELECT company_id, type, is_for_sale, (updated_at AT TIME ZONE 'UTC')::date, -1 FROM old_rows) changed
        GROUP BY 1, 2, 3, 4 HAVING sum(delta) <> 0 ORDER BY 1, 2, 3, 4
        ON CONFLICT (company_id, type, is_for_sale, updated_on) DO UPDATE SET count = c.count + excluded.count;
    ELSE
      INSERT INTO product_counts AS c (company_id, type, is_for_sale, updated_on, count)
        SELECT company_id, type, is_for_sale, (updated_at AT TIME ZONE 'UTC')::date, -count(*) FROM old_rows
        GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
        ON CONFLICT (company_id, type, is_for_sale, updated_on) DO UPDATE SET count = c.count + excluded.count;
    END IF;

  ELSIF TG_TABLE_NAME = 'payments' THEN
    -- Only what GET /payments lists: receipts with an invoice (src/payments/repository.ts).
    IF TG_OP = 'INSERT' THEN
      INSERT INTO receipt_counts AS c (company_id, payment_date, count)
        SELECT company_id, coalesce(payment_date, '-infinity'), count(*) FROM new_rows
        WHERE kind = 'receipt' AND invoice_id IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (company_id, payment_date) DO UPDATE SET count = c.count + excluded.count;
    ELSIF TG_OP = 'UPDATE' THEN
      INSERT INTO receipt_counts AS c (company_id, payment_date, count)
        SELECT company_id, payment_date, sum(delta) FROM (
          SELECT company_id, coalesce(payment_date, '-infinity') AS payment_date, 1 AS delta FROM new_rows
            WHERE kind = 'receipt' AND invoice_id IS NOT NULL
          UNION ALL SELECT company_id, coalesce(payment_date, '-infinity'), -1 FROM old_rows
            WHERE kind = 'receipt' AND invoice_id IS NOT NULL) changed
        GROUP BY 1, 2 HAVING sum(delta) <> 0 ORDER BY 1, 2
        ON CONFLICT (company_id, payment_date) DO UPDATE SET count = c.count + excluded.count;
    ELSE
      INSERT INTO receipt_counts AS c (company_id, payment_date, count)
        SELECT company_id, coalesce(payment_date, '-infinity'), -count(*) FROM old_rows
        WHERE kind = 'receipt' AND invoice_id IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (company_id, payment_date) DO UPDATE SET count = c.count + excluded.count;
    END IF;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- The counts of the rows already there. Writes wait until this migration commits (SHARE: reads go
-- on), so no row is counted twice or missed: a write committed before the lock is in the counts
-- below, a later one is counted by the trigger.
LOCK TABLE invoices, customers, products, payments IN SHARE MODE;
--> statement-breakpoint
INSERT INTO invoice_counts (company_id, status, invoice_date, count)
  SELECT company_id, status, invoice_date, count(*) FROM invoices GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO invoice_update_counts (company_id, status, updated_on, count)
  SELECT company_id, status, (updated_at AT TIME ZONE 'UTC')::date, count(*) FROM invoices GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO customer_counts (company_id, type, updated_on, count)
  SELECT coalesce(company_id, 0), type, (updated_at AT TIME ZONE 'UTC')::date, count(*) FROM customers GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO product_counts (company_id, type, is_for_sale, updated_on, count)
  SELECT company_id, type, is_for_sale, (updated_at AT TIME ZONE 'UTC')::date, count(*) FROM products GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
INSERT INTO receipt_counts (company_id, payment_date, count)
  SELECT company_id, coalesce(payment_date, '-infinity'), count(*) FROM payments
  WHERE kind = 'receipt' AND invoice_id IS NOT NULL GROUP BY 1, 2;
--> statement-breakpoint
ANALYZE customers, products, invoice_counts, invoice_update_counts, customer_counts, product_counts, receipt_counts;
