import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations, schema } from '../fixture/index.js';
import { type DbHandle, fromPglite } from './create-db.js';
import type { Migrations } from './migrate.js';
import { createTestDb } from './testing/create-test-db.js';

const opened: DbHandle<typeof schema>[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((handle) => handle.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh database migrated with `options`: on the DATABASE_URL server when set, else PGlite. */
async function migratedDb(options: Migrations) {
  let handle: DbHandle<typeof schema>;
  if (process.env.DATABASE_URL) {
    handle = await createTestDb({ schema, migrations: options });
  } else {
    handle = fromPglite(await PGlite.create(), schema);
    await handle.migrate(options);
  }
  opened.push(handle);
  return handle;
}

/** A copy of the fixture's functions folder that a test may change. */
function functionsCopy() {
  const dir = mkdtempSync(join(tmpdir(), 'meterway-functions-'));
  dirs.push(dir);
  cpSync(migrations.functions ?? '', dir, { recursive: true });
  return dir;
}

const bumpVersionBy = (step: number) => `
CREATE OR REPLACE FUNCTION "fixture"."bump_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW."version" := OLD."version" + ${step};
	RETURN NEW;
END;
$$;
CREATE OR REPLACE TRIGGER "notes_bump_version"
	BEFORE UPDATE ON "fixture"."notes"
	FOR EACH ROW EXECUTE FUNCTION "fixture"."bump_version"();
`;

async function versionAfterEdit(handle: DbHandle<typeof schema>, id: number): Promise<number | undefined> {
  const [row] = await handle.db.update(schema.notes).set({ body: 'edited' }).where(eq(schema.notes.id, id)).returning();
  return row?.version;
}

async function label(handle: DbHandle<typeof schema>, body: string): Promise<string | undefined> {
  const result = (await handle.db.execute(sql`select fixture.note_label(${body}) as label`)) as unknown as { rows: { label: string }[] };
  return result.rows[0]?.label;
}

describe('migrate with a functions folder', () => {
  it('applies the functions after the migrations, and again on every migrate without doubling them', async () => {
    const handle = await migratedDb(migrations);
    const [note] = await handle.db.insert(schema.notes).values({ body: 'first' }).returning();
    if (!note) throw new Error('no note');
    expect(await versionAfterEdit(handle, note.id)).toBe(2);
    const labelled = await label(handle, 'first');

    await handle.migrate(migrations);
    await handle.migrate(migrations);
    // The trigger still fires once per update, and the function answers as before.
    expect(await versionAfterEdit(handle, note.id)).toBe(3);
    expect(await label(handle, 'first')).toBe(labelled);
  });

  it('runs what the file says after the next migrate', async () => {
    const functions = functionsCopy();
    const options = { ...migrations, functions };
    const handle = await migratedDb(options);
    const [note] = await handle.db.insert(schema.notes).values({ body: 'first' }).returning();
    if (!note) throw new Error('no note');
    expect(await versionAfterEdit(handle, note.id)).toBe(2);

    writeFileSync(join(functions, 'notes-bump-version.sql'), bumpVersionBy(10));
    await handle.migrate(options);
    expect(await versionAfterEdit(handle, note.id)).toBe(12);
  });

  it('applies the files in name order, so a file may use the functions of the files before it', async () => {
    const functions = functionsCopy();
    // A SQL function's body is checked when it is created, so "b" fails unless "a" ran first.
    writeFileSync(join(functions, 'a-double.sql'), `CREATE OR REPLACE FUNCTION "fixture"."double"(n int) RETURNS int LANGUAGE sql AS $$ SELECT n * 2 $$;`);
    writeFileSync(
      join(functions, 'b-quadruple.sql'),
      `CREATE OR REPLACE FUNCTION "fixture"."quadruple"(n int) RETURNS int LANGUAGE sql AS $$ SELECT "fixture"."double"("fixture"."double"(n)) $$;`,
    );
    const handle = await migratedDb({ ...migrations, functions });
    const result = (await handle.db.execute(sql`select fixture.quadruple(3) as n`)) as unknown as { rows: { n: number }[] };
    expect(result.rows[0]?.n).toBe(12);
  });

  it('applies the files in one transaction: a failing file changes no function and is named', async () => {
    const functions = functionsCopy();
    const options = { ...migrations, functions };
    const handle = await migratedDb(options);
    const [note] = await handle.db.insert(schema.notes).values({ body: 'first' }).returning();
    if (!note) throw new Error('no note');

    writeFileSync(join(functions, 'notes-bump-version.sql'), bumpVersionBy(10));
    writeFileSync(
      join(functions, 'zz-broken.sql'),
      'CREATE OR REPLACE FUNCTION "fixture"."broken"() RETURNS int LANGUAGE sql AS $$ SELECT 1 FROM "fixture"."no_such_table" $$;',
    );
    await expect(handle.migrate(options)).rejects.toThrow(/zz-broken\.sql/);
    // The earlier file's change was rolled back with the failing one.
    expect(await versionAfterEdit(handle, note.id)).toBe(2);
  });
});
