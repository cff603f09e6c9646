CREATE TABLE "data_versions" (
	"company_id" integer PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);

--> statement-breakpoint
-- Hand-written below: what drizzle-kit cannot express.
-- Every write to the data the API lists raises its company's counter in data_versions (global
-- customers: company 0), in the writing transaction, so a total remembered with a counter value
-- is exact while the counter has not moved. Companies are locked in id order: no deadlocks.
CREATE OR REPLACE FUNCTION bump_data_version() RETURNS trigger LANGUAGE plpgsql AS $$
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
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER customers_version_insert AFTER INSERT ON customers REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
CREATE TRIGGER customers_version_update AFTER UPDATE ON customers REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
CREATE TRIGGER customers_version_delete AFTER DELETE ON customers REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
CREATE TRIGGER products_version_insert AFTER INSERT ON products REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
CREATE TRIGGER products_version_update AFTER UPDATE ON products REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
CREATE TRIGGER products_version_delete AFTER DELETE ON products REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
CREATE TRIGGER invoices_version_insert AFTER INSERT ON invoices REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
CREATE TRIGGER invoices_version_update AFTER UPDATE ON invoices REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
CREATE TRIGGER invoices_version_delete AFTER DELETE ON invoices REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
CREATE TRIGGER payments_version_insert AFTER INSERT ON payments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
CREATE TRIGGER payments_version_update AFTER UPDATE ON payments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
CREATE TRIGGER payments_version_delete AFTER DELETE ON payments REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
-- Instances remember API keys and their companies for a moment; a change that could turn a key
-- away (revoked, expired, scopes, company disabled or renamed) tells every instance to forget.
-- last_used_at alone does not.
CREATE OR REPLACE FUNCTION notify_api_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_keys_changed', '');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER api_keys_changed AFTER UPDATE OF company_id, mode, scopes, secret_hash, expires_at, revoked_at OR DELETE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION notify_api_keys_changed();
--> statement-breakpoint
CREATE TRIGGER companies_changed AFTER UPDATE OR DELETE ON companies FOR EACH STATEMENT EXECUTE FUNCTION notify_api_keys_changed();
--> statement-breakpoint
-- Searches: trigram indexes on the folded columns, so `%term%` is an index scan, not a full scan.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX customers_search_name_idx ON customers USING gin (search_fold(name) gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX customers_search_email_idx ON customers USING gin (search_fold(email) gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX customers_search_nuit_idx ON customers USING gin (search_fold(nuit) gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX customers_search_phone_idx ON customers USING gin (search_fold(phone) gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX products_search_name_idx ON products USING gin (search_fold(name) gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX products_search_code_idx ON products USING gin (search_fold(product_code) gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX products_search_sku_idx ON products USING gin (search_fold(sku) gin_trgm_ops);
