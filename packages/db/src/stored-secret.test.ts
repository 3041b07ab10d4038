import { PGlite } from '@electric-sql/pglite';
import { eq } from 'drizzle-orm';
import { pgSchema } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DbHandle, fromPglite } from './create-db.js';
import { loadStoredSecret, secretsTable } from './stored-secret.js';

const table = secretsTable(pgSchema('stored_secret_test'));
let handle: DbHandle;

beforeAll(async () => {
  const client = new PGlite();
  await client.exec('create schema stored_secret_test; create table stored_secret_test.secrets (name text primary key, value text not null)');
  handle = fromPglite(client, {});
});
afterAll(() => handle.close());

describe('loadStoredSecret', () => {
  it('makes the key once and then always answers the stored one', async () => {
    let made = 0;
    const secret = { table, name: 'signing', configured: undefined, generate: () => `key-${++made}`, service: 'test' };
    expect(await loadStoredSecret(handle.db, secret)).toBe('key-1');
    expect(await loadStoredSecret(handle.db, secret)).toBe('key-1');
  });

  it('answers the configured key without storing one', async () => {
    const secret = { table, name: 'hmac', configured: 'from-env', generate: () => 'made', service: 'test' };
    expect(await loadStoredSecret(handle.db, secret)).toBe('from-env');
    expect(await handle.db.select().from(table).where(eq(table.name, 'hmac'))).toEqual([]);
  });
});
