import { type Database } from '@meterway/db';
import { setupTestDb } from '@meterway/db/testing';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { distributedTables, distributionColumn, referenceTables } from './distribution.js';
import { migrations, schema } from './index.js';

type Db = Database<typeof schema>;
type UniqueIndex = { table: string; name: string; columns: string[] };
type ForeignKey = { table: string; name: string; referenced: string; pairs: [string, string][] };

const rows = <T>(result: unknown) => (result as { rows: T[] }).rows;

const testDb = setupTestDb({ schema, migrations });

async function tablesOf(db: Db): Promise<Map<string, string[]>> {
  const found = rows<{ table: string; columns: string[] }>(
    await db.execute(sql`select c.relname::text as "table",
        array(select a.attname::text from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as columns
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'app' and c.relkind in ('r', 'p')`),
  );
  return new Map(found.map((row) => [row.table, row.columns]));
}

/** Primary keys, unique constraints and unique indexes (partial ones too: Citus refuses them all without the distribution column). */
async function uniqueIndexesOf(db: Db): Promise<UniqueIndex[]> {
  return rows<UniqueIndex>(
    await db.execute(sql`select t.relname::text as "table", i.relname::text as name,
        array(select a.attname::text from unnest(x.indkey::int2[]) with ordinality k(attnum, ord)
          join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum order by k.ord) as columns
      from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
      join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = 'app' and x.indisunique`),
  );
}

async function foreignKeysOf(db: Db): Promise<ForeignKey[]> {
  const found = rows<{ table: string; name: string; referenced: string; columns: string[]; referencedColumns: string[] }>(
    await db.execute(sql`select t.relname::text as "table", c.conname::text as name, r.relname::text as referenced,
        array(select a.attname::text from unnest(c.conkey) with ordinality k(attnum, ord)
          join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum order by k.ord) as columns,
        array(select a.attname::text from unnest(c.confkey) with ordinality k(attnum, ord)
          join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.attnum order by k.ord) as "referencedColumns"
      from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_class r on r.oid = c.confrelid
      join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = 'app' and c.contype = 'f'`),
  );
  return found.map(({ table, name, referenced, columns, referencedColumns }) => ({
    table,
    name,
    referenced,
    pairs: columns.map((column, i): [string, string] => [column, referencedColumns[i] ?? '']),
  }));
}

/**
 * What keeps the schema from distributing as distribution.ts plans, one line per table or
 * constraint: `<table>: <what>` (a constraint or index by name).
 */
async function violationsOf(db: Db): Promise<string[]> {
  const tables = await tablesOf(db);
  const distributed = new Set(distributedTables);
  const reference = new Set(referenceTables);
  const violations: string[] = [];
  // A table without the column has no key to fix yet; its one line stands for all of them.
  const lacking = new Set(distributedTables.filter((table) => !tables.get(table)?.includes(distributionColumn)));
  for (const table of lacking) violations.push(`${table}: no ${distributionColumn} column`);

  for (const index of await uniqueIndexesOf(db)) {
    if (!distributed.has(index.table) || lacking.has(index.table)) continue;
    if (!index.columns.includes(distributionColumn))
      violations.push(`${index.table}: unique ${index.name} (${index.columns.join(', ')}) without ${distributionColumn}`);
  }
  for (const key of await foreignKeysOf(db)) {
    if (reference.has(key.table) && distributed.has(key.referenced)) {
      violations.push(`${key.table}: foreign key ${key.name} from a reference table to distributed ${key.referenced}`);
    }
    if (!distributed.has(key.table) || !distributed.has(key.referenced) || lacking.has(key.table) || lacking.has(key.referenced)) continue;
    if (!key.pairs.some(([from, to]) => from === distributionColumn && to === distributionColumn)) {
      violations.push(`${key.table}: foreign key ${key.name} to ${key.referenced} without ${distributionColumn}`);
    }
  }
  return violations.sort();
}

describe('the app schema distributes by organisation (docs/scaling.md)', () => {
  it('places every table once: distributed by organisation or a reference table', async () => {
    const tables = [...(await tablesOf(testDb.db)).keys()].sort();
    const placed = [...distributedTables, ...referenceTables];
    expect(new Set(placed).size, 'a table is in both lists or twice in one').toBe(placed.length);
    expect(tables, 'every table of the app schema, and only those, is placed in distribution.ts').toEqual([...placed].sort());
  });

  it('keeps the organisation in every distributed key, unique index and foreign key', async () => {
    expect(await violationsOf(testDb.db), 'add organization_id to the key, or place the table as a reference table').toEqual([]);
  });
});
