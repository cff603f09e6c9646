CREATE TABLE "accounting_entries" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"invoice_id" integer,
	"payment_id" integer,
	"description" text NOT NULL,
	"debit" numeric(18, 2) NOT NULL,
	"credit" numeric(18, 2) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"mode" text NOT NULL,
	"display_prefix" text NOT NULL,
	"secret_hash" text NOT NULL,
	"scopes" text[] NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "api_keys_mode_check" CHECK ("api_keys"."mode" in ('live', 'test'))
);
--> statement-breakpoint
CREATE TABLE "companies" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"nuit" text,
	"partner_api_enabled" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "customers" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer,
	"name" text NOT NULL,
	"type" text DEFAULT 'individual' NOT NULL,
	"email" text,
	"phone" text,
	"contact_number" text,
	"nuit" text,
	"address" text,
	"account_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "customers_type_check" CHECK ("customers"."type" in ('individual', 'company'))
);
--> statement-breakpoint
CREATE TABLE "fiscal_sequences" (
	"company_id" integer NOT NULL,
	"series" text NOT NULL,
	"year" integer NOT NULL,
	"last_value" integer NOT NULL,
	CONSTRAINT "fiscal_sequences_company_id_series_year_pk" PRIMARY KEY("company_id","series","year")
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"api_key_id" integer NOT NULL,
	"company_id" integer NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"state" text NOT NULL,
	"locked_at" timestamp with time zone DEFAULT now() NOT NULL,
	"response_status" integer,
	"response_body" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoice_items" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"invoice_id" integer NOT NULL,
	"position" integer NOT NULL,
	"product_id" integer,
	"name" text DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"quantity" numeric(18, 4),
	"price" numeric(18, 2),
	"discount" numeric(18, 2),
	"discount_percentage" numeric(7, 4),
	"tax_id" integer,
	"tax_amount" numeric(18, 2),
	"tax_rate" numeric(9, 4),
	"tax_included" boolean,
	"total" numeric(18, 2),
	"unit_cost" numeric(18, 2)
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"customer_id" integer,
	"invoice_code" text NOT NULL,
	"payment_notice_code" text DEFAULT '' NOT NULL,
	"document_type" text DEFAULT 'invoice' NOT NULL,
	"is_payment_notice" boolean DEFAULT false NOT NULL,
	"notice_kind" text DEFAULT '' NOT NULL,
	"is_pos_sale" boolean DEFAULT false NOT NULL,
	"reference" text DEFAULT '' NOT NULL,
	"payment_reference" text DEFAULT '' NOT NULL,
	"status" text NOT NULL,
	"invoice_date" date NOT NULL,
	"due_date" date NOT NULL,
	"currency" text DEFAULT 'MZN' NOT NULL,
	"exchange_rate" numeric(18, 6),
	"subtotal" numeric(18, 2),
	"discount" numeric(18, 2),
	"global_discount_amount" numeric(18, 2),
	"vat_base" numeric(18, 2),
	"tax" numeric(18, 2),
	"grand_total" numeric(18, 2),
	"paid_amount" numeric(18, 2),
	"remaining_amount" numeric(18, 2),
	"notes" text DEFAULT '' NOT NULL,
	"cost_total" numeric(18, 2),
	"created_by_api_key_id" integer,
	"issued_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "invoices_status_check" CHECK ("invoices"."status" in ('draft', 'unpaid', 'partially_paid', 'paid', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"kind" text NOT NULL,
	"invoice_id" integer,
	"payment_code" text NOT NULL,
	"payment_date" date,
	"amount" numeric(18, 2),
	"payment_method" text DEFAULT '' NOT NULL,
	"payment_method_type" text DEFAULT '' NOT NULL,
	"reference" text DEFAULT '' NOT NULL,
	"notes" text,
	"account_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payments_kind_check" CHECK ("payments"."kind" in ('receipt', 'salary', 'supplier_payment'))
);
--> statement-breakpoint
CREATE TABLE "product_categories" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "product_category_links" (
	"product_id" integer NOT NULL,
	"category_id" integer NOT NULL,
	CONSTRAINT "product_category_links_product_id_category_id_pk" PRIMARY KEY("product_id","category_id")
);
--> statement-breakpoint
CREATE TABLE "product_code_sequences" (
	"company_id" integer NOT NULL,
	"type" text NOT NULL,
	"last_value" integer NOT NULL,
	CONSTRAINT "product_code_sequences_company_id_type_pk" PRIMARY KEY("company_id","type")
);
--> statement-breakpoint
CREATE TABLE "products" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"name" text NOT NULL,
	"product_code" text NOT NULL,
	"sku" text,
	"description" text,
	"type" text NOT NULL,
	"inventory" text NOT NULL,
	"unity" text,
	"price" numeric(18, 2),
	"pos_price" numeric(18, 2),
	"cost_price" numeric(18, 2),
	"vat_included" boolean DEFAULT false NOT NULL,
	"tax_id" integer,
	"stock" numeric(18, 4),
	"reorder_level" integer,
	"is_for_sale" boolean DEFAULT true NOT NULL,
	"is_for_purchase" boolean DEFAULT true NOT NULL,
	"income_account_id" integer,
	"expense_account_id" integer,
	"pos_sync_pending" boolean DEFAULT false NOT NULL,
	"pos_changed_at" timestamp with time zone,
	"sync_id" text,
	"synced" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "products_type_check" CHECK ("products"."type" in ('GOODS', 'SERVICES', 'RAW', 'ASSETS', 'KIT')),
	CONSTRAINT "products_inventory_check" CHECK ("products"."inventory" in ('INVENTORY', 'NON_INVENTORY'))
);
--> statement-breakpoint
CREATE TABLE "stock_movements" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"product_id" integer NOT NULL,
	"invoice_id" integer,
	"quantity" numeric(18, 4) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "taxes" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer,
	"name" text NOT NULL,
	"rate" numeric(9, 4) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "accounting_entries" ADD CONSTRAINT "accounting_entries_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "accounting_entries" ADD CONSTRAINT "accounting_entries_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customers" ADD CONSTRAINT "customers_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fiscal_sequences" ADD CONSTRAINT "fiscal_sequences_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_items" ADD CONSTRAINT "invoice_items_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_items" ADD CONSTRAINT "invoice_items_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_items" ADD CONSTRAINT "invoice_items_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_items" ADD CONSTRAINT "invoice_items_tax_id_taxes_id_fk" FOREIGN KEY ("tax_id") REFERENCES "public"."taxes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_created_by_api_key_id_api_keys_id_fk" FOREIGN KEY ("created_by_api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_categories" ADD CONSTRAINT "product_categories_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_category_links" ADD CONSTRAINT "product_category_links_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_category_links" ADD CONSTRAINT "product_category_links_category_id_product_categories_id_fk" FOREIGN KEY ("category_id") REFERENCES "public"."product_categories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_code_sequences" ADD CONSTRAINT "product_code_sequences_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_tax_id_taxes_id_fk" FOREIGN KEY ("tax_id") REFERENCES "public"."taxes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_movements" ADD CONSTRAINT "stock_movements_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_movements" ADD CONSTRAINT "stock_movements_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_movements" ADD CONSTRAINT "stock_movements_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "taxes" ADD CONSTRAINT "taxes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "accounting_entries_company_idx" ON "accounting_entries" USING btree ("company_id");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_secret_hash_key" ON "api_keys" USING btree ("secret_hash");--> statement-breakpoint
CREATE INDEX "api_keys_company_idx" ON "api_keys" USING btree ("company_id");--> statement-breakpoint
CREATE UNIQUE INDEX "customers_company_email_key" ON "customers" USING btree ("company_id",lower("email")) WHERE "customers"."company_id" is not null and "customers"."email" is not null;--> statement-breakpoint
CREATE INDEX "customers_company_created_idx" ON "customers" USING btree ("company_id","created_at","id");--> statement-breakpoint
CREATE INDEX "customers_company_updated_idx" ON "customers" USING btree ("company_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "customers_company_name_idx" ON "customers" USING btree ("company_id","name","id");--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_keys_api_key_key" ON "idempotency_keys" USING btree ("api_key_id","key");--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "invoice_items_invoice_idx" ON "invoice_items" USING btree ("invoice_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_company_code_key" ON "invoices" USING btree ("company_id","invoice_code");--> statement-breakpoint
CREATE INDEX "invoices_company_date_idx" ON "invoices" USING btree ("company_id","invoice_date","id");--> statement-breakpoint
CREATE INDEX "invoices_company_due_idx" ON "invoices" USING btree ("company_id","due_date","id");--> statement-breakpoint
CREATE INDEX "invoices_company_total_idx" ON "invoices" USING btree ("company_id","grand_total","id");--> statement-breakpoint
CREATE INDEX "invoices_company_created_idx" ON "invoices" USING btree ("company_id","created_at","id");--> statement-breakpoint
CREATE INDEX "invoices_company_updated_idx" ON "invoices" USING btree ("company_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "invoices_company_status_date_idx" ON "invoices" USING btree ("company_id","status","invoice_date","id");--> statement-breakpoint
CREATE INDEX "invoices_company_customer_date_idx" ON "invoices" USING btree ("company_id","customer_id","invoice_date","id");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_company_code_key" ON "payments" USING btree ("company_id","payment_code");--> statement-breakpoint
CREATE INDEX "payments_company_kind_date_idx" ON "payments" USING btree ("company_id","kind","payment_date","id");--> statement-breakpoint
CREATE INDEX "payments_company_kind_amount_idx" ON "payments" USING btree ("company_id","kind","amount","id");--> statement-breakpoint
CREATE INDEX "payments_company_kind_created_idx" ON "payments" USING btree ("company_id","kind","created_at","id");--> statement-breakpoint
CREATE INDEX "payments_company_kind_updated_idx" ON "payments" USING btree ("company_id","kind","updated_at","id");--> statement-breakpoint
CREATE INDEX "payments_invoice_idx" ON "payments" USING btree ("invoice_id");--> statement-breakpoint
CREATE UNIQUE INDEX "product_categories_company_name_key" ON "product_categories" USING btree ("company_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "products_company_code_key" ON "products" USING btree ("company_id","product_code");--> statement-breakpoint
CREATE INDEX "products_company_created_idx" ON "products" USING btree ("company_id","created_at","id");--> statement-breakpoint
CREATE INDEX "products_company_updated_idx" ON "products" USING btree ("company_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "products_company_name_idx" ON "products" USING btree ("company_id","name","id");--> statement-breakpoint
CREATE INDEX "products_company_price_idx" ON "products" USING btree ("company_id","price","id");--> statement-breakpoint
CREATE INDEX "products_company_stock_idx" ON "products" USING btree ("company_id","stock","id");--> statement-breakpoint
CREATE INDEX "products_pos_pending_idx" ON "products" USING btree ("company_id","pos_changed_at") WHERE "products"."pos_sync_pending";--> statement-breakpoint
CREATE INDEX "stock_movements_company_product_idx" ON "stock_movements" USING btree ("company_id","product_id");--> statement-breakpoint
CREATE INDEX "taxes_company_idx" ON "taxes" USING btree ("company_id");