-- A payment's invoice is of the payment's own company, enforced: the receipts a company sees are
-- then its receipts with an invoice, read from the payments indexes without joining invoices.
-- The application never links a receipt to another company's invoice; if a database holds such a
-- row anyway, this migration stops and names it rather than hide or change financial data.
DO $$
DECLARE crossed text;
BEGIN
  SELECT string_agg(p.id::text, ', ' ORDER BY p.id) INTO crossed
    FROM (SELECT p.id FROM payments p JOIN invoices i ON i.id = p.invoice_id
           WHERE i.company_id <> p.company_id ORDER BY p.id LIMIT 20) p;
  IF crossed IS NOT NULL THEN
    RAISE EXCEPTION 'payments linked to an invoice of another company (ids %): fix them before migrating', crossed;
  END IF;
END $$;--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_id_company_key" ON "invoices" USING btree ("id","company_id");--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_invoice_company_fk" FOREIGN KEY ("invoice_id","company_id") REFERENCES "public"."invoices"("id","company_id") ON DELETE no action ON UPDATE no action;
