-- The list of receipts (GET /payments) sorts on one of four columns. Its indexes now hold only the
-- rows the list may show (receipts with an invoice, which 0006 made of the payment's own company),
-- so a deep page's offset is skipped on the index alone (an index-only scan), without visiting one
-- table row per skipped receipt. They replace the (company_id, kind, ...) indexes, which only the
-- list used. Building them reads the payments once; no row is changed.
DROP INDEX "payments_company_kind_date_idx";--> statement-breakpoint
DROP INDEX "payments_company_kind_amount_idx";--> statement-breakpoint
DROP INDEX "payments_company_kind_created_idx";--> statement-breakpoint
DROP INDEX "payments_company_kind_updated_idx";--> statement-breakpoint
CREATE INDEX "payments_receipts_date_idx" ON "payments" USING btree ("company_id","payment_date","id") WHERE "payments"."kind" = 'receipt' and "payments"."invoice_id" is not null;--> statement-breakpoint
CREATE INDEX "payments_receipts_amount_idx" ON "payments" USING btree ("company_id","amount","id") WHERE "payments"."kind" = 'receipt' and "payments"."invoice_id" is not null;--> statement-breakpoint
CREATE INDEX "payments_receipts_created_idx" ON "payments" USING btree ("company_id","created_at","id") WHERE "payments"."kind" = 'receipt' and "payments"."invoice_id" is not null;--> statement-breakpoint
CREATE INDEX "payments_receipts_updated_idx" ON "payments" USING btree ("company_id","updated_at","id") WHERE "payments"."kind" = 'receipt' and "payments"."invoice_id" is not null;