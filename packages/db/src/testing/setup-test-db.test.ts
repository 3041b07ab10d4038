import { describe, expect, it } from 'vitest';
import { migrations, schema } from '../../fixture/index.js';
import { createTestDb } from './create-test-db.js';
import { setupTestDb } from './setup-test-db.js';

const testDb = setupTestDb({ schema, migrations });

describe('setupTestDb', () => {
  it('gives this file a migrated database of its own', async () => {
    await testDb.db.insert(schema.notes).values({ body: 'mine' });
    const rows = await testDb.db.select().from(schema.notes);
    expect(rows.map((row) => row.body)).toEqual(['mine']);
  });

  it('hands every caller a separate database', async () => {
    const other = await createTestDb({ schema, migrations });
    try {
      expect(await other.db.select().from(schema.notes)).toEqual([]);
      await other.db.insert(schema.notes).values({ body: 'theirs' });
      const mine = await testDb.db.select().from(schema.notes);
      expect(mine.map((row) => row.body)).toEqual(['mine']);
    } finally {
      await other.close();
    }
  });
});
