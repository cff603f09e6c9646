// `deprecations usage`: which keys of which companies used a deprecated route, query parameter or
// request field (src/http/deprecation.ts) over the last 30 days, from the request log, so that
// support can reach them before the sunset. Crosses companies on purpose: it is the operator's view.
import { sql } from 'drizzle-orm';
import type { ActingContext } from '../context.js';
import { queryRows } from '../db/client.js';
import { apiKeys, companies, requestLog } from '../db/schema.js';
import { formatTimestamp } from '../format.js';
import { RETENTION_DAYS } from '../request-log/writer.js';
import { define } from './define.js';

export interface DeprecatedUseByKey {
  /** As the request log keeps it: `GET /customers?search`, `POST /customers body.email`. */
  item: string;
  company_id: number;
  company_name: string;
  api_key_id: number;
  /** How the key shows in `keys list` (`svc_sk_live_ab12…`), never the key. */
  api_key: string;
  requests: number;
  last_used_at: string;
}

export interface DeprecatedUsage {
  days: number;
  uses: DeprecatedUseByKey[];
}

/** Every (item, key) pair used in the last 30 days: item, company, key order. */
export async function deprecatedUsage(context: ActingContext): Promise<DeprecatedUsage> {
  const r = requestLog;
  const rows = await queryRows<Omit<DeprecatedUseByKey, 'last_used_at'> & { last_used_at: Date | string }>(
    context.db,
    sql`select used.item, ${r.companyId} as company_id, ${companies.name} as company_name,
        ${r.apiKeyId} as api_key_id, ${apiKeys.displayPrefix} as api_key,
        count(*)::integer as requests, max(${r.at}) as last_used_at
      from ${r}
      cross join lateral jsonb_array_elements_text(${r.deprecatedUse}) as used(item)
      join ${companies} on ${companies.id} = ${r.companyId}
      join ${apiKeys} on ${apiKeys.id} = ${r.apiKeyId}
      where ${r.deprecatedUse} is not null and ${r.at} >= now() - make_interval(days => ${RETENTION_DAYS}::integer)
      group by used.item, ${r.companyId}, ${companies.name}, ${r.apiKeyId}, ${apiKeys.displayPrefix}
      order by used.item, ${r.companyId}, ${r.apiKeyId}`,
  );
  return {
    days: RETENTION_DAYS,
    uses: rows.map((row) => ({
      ...row,
      last_used_at: formatTimestamp(new Date(row.last_used_at), context.timeZone),
    })),
  };
}

export const deprecationOperations = {
  'deprecations.usage': define({
    reads: true,
    parse: () => ({}),
    run: (context) => deprecatedUsage(context),
  }),
};
