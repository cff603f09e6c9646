// A data set is complete when its marker row exists: the generator writes it last, so a load that
// died half-way is never mistaken for a finished one.
import type pg from 'pg';

/** Bump when the generator's output changes: older data sets are then rebuilt. */
export const GENERATOR_VERSION = 1;

export interface DatasetInfo {
  database: string;
  url: string;
  invoices: number;
  mainCompany: number;
  noiseCompany: number;
  counts: Record<string, number>;
  generatedSeconds: number;
  sizeBytes: number;
}

export const CREATE_MARKER = `create table if not exists bench.dataset (
  invoices integer primary key,
  generator_version integer not null,
  main_company integer not null,
  noise_company integer not null,
  counts jsonb not null,
  generated_seconds numeric not null,
  completed_at timestamptz not null default now()
)`;

export async function readMarker(
  client: pg.Client,
): Promise<Omit<DatasetInfo, 'database' | 'url' | 'sizeBytes'> | null> {
  const exists = await client.query(`select to_regclass('bench.dataset') is not null as ok`);
  if (!exists.rows[0]?.ok) return null;
  const result = await client.query(
    'select invoices, main_company, noise_company, counts, generated_seconds from bench.dataset where generator_version = $1',
    [GENERATOR_VERSION],
  );
  const row = result.rows[0];
  if (!row) return null;
  return {
    invoices: row.invoices,
    mainCompany: row.main_company,
    noiseCompany: row.noise_company,
    counts: row.counts,
    generatedSeconds: Number(row.generated_seconds),
  };
}
