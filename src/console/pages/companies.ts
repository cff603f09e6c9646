// The companies: the list (searched by id, name or NUIT, with each one's active keys and last
// request), a company's page (with the taxes it may use: the tax ids its partner needs), and turning
// its partner API on or off (`companies enable-api` and `disable-api`).
import { and, count, eq, isNull, max, sql } from 'drizzle-orm';
import type { FastifyReply } from 'fastify';
import { apiKeys, requestLog, webhookEndpoints } from '../../db/schema.js';
import { usableTaxes } from '../../products/taxes.js';
import { act, can, form, notFoundPage, type PageContext, query, run, visibleCompany } from './shared.js';

export async function companiesPage(page: PageContext): Promise<FastifyReply> {
  const q = (query(page).q ?? '').trim().slice(0, 200);
  const db = page.deps.handle.db;
  const folded = q.toLowerCase();
  const all = (await run(page, 'companies.list', {})).companies.filter(
    (c) =>
      q === '' ||
      String(c.id) === q ||
      c.name.toLowerCase().includes(folded) ||
      (c.nuit ?? '').replace(/\s+/g, '').includes(q.replace(/\s+/g, '')),
  );
  const shown = all.slice(0, 100);
  const ids = shown.map((c) => c.id);
  const keyCounts = ids.length
    ? await db
        .select({ companyId: apiKeys.companyId, n: count() })
        .from(apiKeys)
        .where(
          and(
            isNull(apiKeys.revokedAt),
            sql`${apiKeys.expiresAt} > now()`,
            sql`${apiKeys.companyId} in ${ids}`,
          ),
        )
        .groupBy(apiKeys.companyId)
    : [];
  const rows = await Promise.all(
    shown.map(async (c) => {
      const [last] = await db
        .select({ at: max(requestLog.at) })
        .from(requestLog)
        .where(eq(requestLog.companyId, c.id));
      return {
        ...c,
        keys: keyCounts.find((k) => k.companyId === c.id)?.n ?? 0,
        last_request: last?.at ? new Date(last.at).toISOString() : null,
      };
    }),
  );
  return page.render('companies', page.t('companies.title'), { companies: rows, q });
}

/** GET /companies/:id; after setApi's redirect (`?done=api-on|api-off`) it says what changed. */
export async function companyPage(page: PageContext): Promise<FastifyReply> {
  const done = query(page).done;
  const state = done === 'api-on' ? page.t('api.on') : done === 'api-off' ? page.t('api.off') : null;
  const notice = state ? page.t('company.api_changed', { state }) : undefined;
  const company = await visibleCompany(page);
  if (!company) return notFoundPage(page);
  const db = page.deps.handle.db;
  const [keys] = await db
    .select({ n: count() })
    .from(apiKeys)
    .where(
      and(eq(apiKeys.companyId, company.id), isNull(apiKeys.revokedAt), sql`${apiKeys.expiresAt} > now()`),
    );
  const [endpoints] = await db
    .select({ n: count() })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.companyId, company.id));
  // The tax ids a partner gives (decisions.md: this view and `taxes list` are where they are found),
  // read as `taxes list` and a refused tax_id's hint read them; the company is known to exist here.
  const taxes = await usableTaxes(db, company.id);
  return page.render(
    'company',
    page.t('company.title', { id: company.id, name: company.name }),
    { company, activeKeys: keys?.n ?? 0, endpoints: endpoints?.n ?? 0, taxes, can: can(page) },
    { notice },
  );
}

export async function setApi(page: PageContext): Promise<FastifyReply> {
  const company = await visibleCompany(page);
  if (!company) return notFoundPage(page);
  const enable = form(page).enabled === 'true';
  return act(page, enable ? 'companies.enable-api' : 'companies.disable-api', { id: company.id }, () =>
    page.reply.redirect(`/companies/${company.id}?done=${enable ? 'api-on' : 'api-off'}`, 303),
  );
}
