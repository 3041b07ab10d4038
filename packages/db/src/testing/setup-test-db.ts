import { afterAll, beforeAll } from 'vitest';
import type { Database, Schema } from '../create-db.js';
import { createTestDb, type TestDbHandle, type TestDbOptions } from './create-test-db.js';

export type TestDb<TSchema extends Schema> = { readonly db: Database<TSchema>; readonly handle: TestDbHandle<TSchema> };

/** Gives the calling test file its own migrated database, opened before its tests and always closed after. */
export function setupTestDb<TSchema extends Schema>(options: TestDbOptions<TSchema>): TestDb<TSchema> {
  let handle: TestDbHandle<TSchema> | undefined;
  beforeAll(async () => {
    handle = await createTestDb(options);
  }, 60_000);
  afterAll(async () => {
    await handle?.close();
  });
  const current = () => {
    if (!handle) throw new Error('The test database is opened in beforeAll; use it inside tests or hooks.');
    return handle;
  };
  return {
    get db() {
      return current().db;
    },
    get handle() {
      return current();
    },
  };
}
