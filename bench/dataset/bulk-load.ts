// Bulk loads are much faster without secondary indexes and foreign keys. Whatever the migrations
// define at the time (including indexes added later by the optimization work) is read from the
// catalog, dropped, and re-created from its own definition after the load.
import type pg from 'pg';

interface SavedDdl {
  indexes: { name: string; definition: string }[];
  foreignKeys: { table: string; name: string; definition: string }[];
}

export async function dropSecondaryIndexesAndForeignKeys(
  client: pg.Client,
  tables: string[],
): Promise<SavedDdl> {
  const indexes = await client.query<{ name: string; definition: string }>(
    `select c.relname as name, pg_get_indexdef(i.indexrelid) as definition
     from pg_index i join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid
     where t.relnamespace = 'public'::regnamespace and t.relname = any($1)
       and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)`,
    [tables],
  );
  const foreignKeys = await client.query<{ table: string; name: string; definition: string }>(
    `select conrelid::regclass::text as table, conname as name, pg_get_constraintdef(oid) as definition
     from pg_constraint where contype = 'f' and connamespace = 'public'::regnamespace`,
  );
  for (const fk of foreignKeys.rows)
    await client.query(`alter table ${fk.table} drop constraint "${fk.name}"`);
  for (const index of indexes.rows) await client.query(`drop index "${index.name}"`);
  return { indexes: indexes.rows, foreignKeys: foreignKeys.rows };
}

export async function recreate(client: pg.Client, saved: SavedDdl): Promise<void> {
  for (const index of saved.indexes) await client.query(index.definition);
  for (const fk of saved.foreignKeys) {
    await client.query(`alter table ${fk.table} add constraint "${fk.name}" ${fk.definition}`);
  }
}
