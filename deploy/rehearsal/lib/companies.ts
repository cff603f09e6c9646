// The rehearsals' companies and keys, made as an operator makes them: `bin/invoicing demo` for each
// company (a live key), then more live keys with `keys create`.
import { invoicing } from './checks.js';
import type { KeyOfCompany } from './load.js';

export interface SeededCompanies {
  companyIds: number[];
  /** Every key of every company, `keysPerCompany` each. */
  keys: KeyOfCompany[];
}

export async function seedCompanies(
  cliEnv: NodeJS.ProcessEnv,
  companies: number,
  keysPerCompany: number,
): Promise<SeededCompanies> {
  const companyIds: number[] = [];
  const keys: KeyOfCompany[] = [];
  for (let company = 0; company < companies; company++) {
    const demo = await invoicing<{ id: number; live_key: { key: string } }>(cliEnv, ['demo']);
    companyIds.push(demo.id);
    keys.push({ companyId: demo.id, key: demo.live_key.key });
    for (let extra = 1; extra < keysPerCompany; extra++) {
      const created = await invoicing<{ key: string }>(cliEnv, [
        ...['keys', 'create', '--company', String(demo.id), '--mode', 'live', '--scopes', 'all'],
      ]);
      keys.push({ companyId: demo.id, key: created.key });
    }
  }
  return { companyIds, keys };
}
