// Customers: individuals (78%) and companies, with NUIT, +258 phones, e-mails and addresses.
import { int, type Layout, spreadTimestamp, textArray } from './sql-helpers.js';
import * as words from './vocabulary.js';

function phone(n: string, salt: number): string {
  return `'+258 8' || (2 + floor(bench.rnd(${n}, ${salt}) * 6))::int || ' ' || lpad(floor(bench.rnd(${n}, ${salt + 1}) * 1000)::int::text, 3, '0') || ' ' || lpad(floor(bench.rnd(${n}, ${salt + 2}) * 10000)::int::text, 4, '0')`;
}

export function insertCustomers(layout: Layout): string {
  const first = textArray(words.FIRST_NAMES);
  const surnames = textArray(words.SURNAMES);
  const created = spreadTimestamp('g.n', layout.total, 1100, 9);
  return `
insert into customers (id, company_id, name, type, email, phone, contact_number, nuit, address, created_at, updated_at)
select ${int(layout.base)} + g.n,
  case when g.n % 51 = 0 then ${int(layout.noiseCompany)} else ${int(layout.mainCompany)} end,
  p.name, p.type,
  case when bench.rnd(g.n, 6) < 0.8 then
    case when p.type = 'individual' then bench.plain(p.first || '.' || p.surname) else 'geral.' || bench.plain(p.surname) end
    || '.' || g.n || '@' || bench.pick(${textArray(words.EMAIL_DOMAINS)}, g.n, 7) end,
  case when bench.rnd(g.n, 8) < 0.9 then ${phone('g.n', 10)} end,
  case when bench.rnd(g.n, 13) < 0.3 then ${phone('g.n', 14)} end,
  case when bench.rnd(g.n, 17) < 0.85 then
    (case when p.type = 'individual' then '1' else '4' end) || lpad(((g.n::bigint * 48271) % 99999989)::text, 8, '0') end,
  bench.pick(${textArray(words.STREETS)}, g.n, 18) || ' ' || (1 + floor(bench.rnd(g.n, 19) * 2000))::int || ', '
    || bench.pick(${textArray(words.NEIGHBOURHOODS)}, g.n, 20) || ', ' || bench.pick(${textArray(words.CITIES)}, g.n, 21),
  ${created},
  case when bench.rnd(g.n, 22) < 0.3 then ${created} + bench.rnd(g.n, 23) * (now() - ${created}) else ${created} end
from generate_series(1, ${int(layout.total)}) as g(n)
cross join lateral (
  select bench.pick(${first}, g.n, 2) as first,
    bench.pick(${surnames}, g.n, 3) as surname,
    case when bench.rnd(g.n, 1) < 0.78 then 'individual' else 'company' end as type
) as w
cross join lateral (
  select w.first, w.surname, w.type,
    case when w.type = 'individual'
      then w.first || ' ' || case when bench.rnd(g.n, 4) < 0.5 then bench.pick(${surnames}, g.n, 5) || ' ' else '' end || w.surname
      else bench.pick(${textArray(words.COMPANY_KINDS)}, g.n, 4) || ' '
        || case when bench.rnd(g.n, 5) < 0.5 then w.surname else bench.pick(${textArray(words.CITIES)}, g.n, 5) end
        || bench.pick(${textArray(words.COMPANY_SUFFIXES)}, g.n, 24)
    end as name
) as p`;
}
