// Products of every type with product codes per type and company, prices, stock, taxes and
// categories.
import { int, type Layout, spreadTimestamp, textArray } from './sql-helpers.js';
import * as words from './vocabulary.js';

export interface ProductTaxes {
  mainTax: number;
  noiseTax: number;
}

export function insertProducts(layout: Layout, taxes: ProductTaxes): string {
  const created = spreadTimestamp('t.n', layout.total, 1100, 39);
  return `
insert into products (id, company_id, name, product_code, sku, description, type, inventory, unity, price,
  pos_price, cost_price, vat_included, tax_id, stock, reorder_level, is_for_sale, is_for_purchase, synced,
  created_at, updated_at)
select ${int(layout.base)} + t.n, t.company_id, t.name,
  (case t.type when 'GOODS' then 'BEN' when 'SERVICES' then 'SRV' when 'RAW' then 'MP' when 'ASSETS' then 'ACT' else 'KIT' end)
    || '-' || lpad((row_number() over (partition by t.company_id, t.type order by t.n))::text, 6, '0'),
  case when bench.rnd(t.n, 31) < 0.8 then upper(left(replace(bench.plain(t.name), '.', ''), 3)) || '-' || t.n end,
  case when bench.rnd(t.n, 32) < 0.4 then 'Produto ' || lower(t.name) || ', fornecido pela ' || bench.pick(${textArray(words.BRANDS)}, t.n, 33) end,
  t.type,
  case when t.type in ('GOODS', 'RAW', 'KIT') and bench.rnd(t.n, 34) < 0.9 then 'INVENTORY' else 'NON_INVENTORY' end,
  case when t.type = 'SERVICES' then 'serviço' else bench.pick(${textArray(words.UNITS)}, t.n, 35) end,
  t.price,
  case when bench.rnd(t.n, 36) < 0.3 then round(t.price * 1.05, 2) end,
  round(t.price * 0.7, 2),
  bench.rnd(t.n, 37) < 0.1,
  case when bench.rnd(t.n, 38) < 0.85 then case when t.n % 51 = 0 then ${int(taxes.noiseTax)} else ${int(taxes.mainTax)} end end,
  case when t.type in ('GOODS', 'RAW', 'KIT') and bench.rnd(t.n, 34) < 0.9 then floor(bench.rnd(t.n, 40) * 500)::numeric end,
  case when bench.rnd(t.n, 41) < 0.5 then 5 + floor(bench.rnd(t.n, 42) * 45)::int end,
  bench.rnd(t.n, 43) < 0.92,
  true,
  true,
  ${created},
  case when bench.rnd(t.n, 44) < 0.4 then ${created} + bench.rnd(t.n, 45) * (now() - ${created}) else ${created} end
from (
  select g.n,
    case when g.n % 51 = 0 then ${int(layout.noiseCompany)} else ${int(layout.mainCompany)} end as company_id,
    k.type,
    case k.type
      when 'GOODS' then bench.pick(${textArray(words.GOODS)}, g.n, 46) || ' ' || bench.pick(${textArray(words.GOODS_VARIANTS)}, g.n, 47)
        || ' ' || bench.pick(${textArray(words.SIZES)}, g.n, 48) || ' ' || bench.pick(${textArray(words.BRANDS)}, g.n, 49)
      when 'SERVICES' then bench.pick(${textArray(words.SERVICES)}, g.n, 46) || ' ' || bench.pick(${textArray(words.SERVICE_QUALIFIERS)}, g.n, 47)
      when 'RAW' then bench.pick(${textArray(words.RAW_MATERIALS)}, g.n, 46) || ' ' || bench.pick(${textArray(words.SIZES)}, g.n, 48)
      when 'ASSETS' then bench.pick(${textArray(words.ASSETS)}, g.n, 46) || ' ' || bench.pick(${textArray(words.BRANDS)}, g.n, 49)
      else bench.pick(${textArray(words.KITS)}, g.n, 46) || ' ' || bench.pick(${textArray(words.GOODS_VARIANTS)}, g.n, 47)
    end as name,
    round((5 + power(bench.rnd(g.n, 50), 4) * 25000)::numeric, 2) as price
  from generate_series(1, ${int(layout.total)}) as g(n)
  cross join lateral (
    select case
      when bench.rnd(g.n, 30) < 0.70 then 'GOODS'
      when bench.rnd(g.n, 30) < 0.82 then 'SERVICES'
      when bench.rnd(g.n, 30) < 0.92 then 'RAW'
      when bench.rnd(g.n, 30) < 0.97 then 'ASSETS'
      else 'KIT' end as type
  ) as k
) as t`;
}

/** The categories of both companies: ids base+1..base+24 for the main one, the next 24 for the noise one. */
export function insertCategories(base: number, mainCompany: number, noiseCompany: number): string {
  const names = textArray(words.CATEGORIES);
  return `
insert into product_categories (id, company_id, name)
select ${int(base)} + c.i * ${words.CATEGORIES.length} + g.k, c.company_id, (${names})[g.k]
from (values (0, ${int(mainCompany)}), (1, ${int(noiseCompany)})) as c(i, company_id)
cross join generate_series(1, ${words.CATEGORIES.length}) as g(k)`;
}

/** 75% of products get one category of their company, a tenth of them a second one. */
export function insertCategoryLinks(products: Layout, categoryBase: number): string {
  const count = words.CATEGORIES.length;
  const first = `(floor(bench.rnd(g.n, 51) * ${count}))::int`;
  const companyBase = `${int(categoryBase)} + case when g.n % 51 = 0 then ${count} else 0 end`;
  return `
insert into product_category_links (product_id, category_id)
select ${int(products.base)} + g.n, ${companyBase} + 1 + (${first} + s.shift) % ${count}
from generate_series(1, ${int(products.total)}) as g(n)
cross join lateral (values (0), (1 + floor(bench.rnd(g.n, 53) * ${count - 1})::int)) as s(shift)
where bench.rnd(g.n, 52) < 0.75 and (s.shift = 0 or bench.rnd(g.n, 54) < 0.1)`;
}
