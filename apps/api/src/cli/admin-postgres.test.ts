import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDb, type TestDbHandle } from '@meterway/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations, schema } from '../db/index.js';
import { type Api, insertPerson, readSystemAdmin, runCli, startApi, uniqueEmail } from './testing/processes.js';

// Postgres takes any number of clients: the CLI connects by itself even while the api runs.
describe.skipIf(!process.env.DATABASE_URL)('npm run admin on Postgres while the api runs', () => {
  let dataDir = '';
  const email = uniqueEmail('hedy');
  let testDb: TestDbHandle<typeof schema> | undefined;
  let api: Api | undefined;
  const env = () => ({ DATA_DIR: dataDir, DATABASE_URL: testDb?.databaseUrl });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'meterway-admin-'));
    testDb = await createTestDb({ schema, migrations });
    await insertPerson(testDb.db, email);
    api = await startApi(env());
  }, 30_000);
  afterAll(async () => {
    await api?.stop('SIGTERM');
    await testDb?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('grants and revokes directly on the database', async () => {
    const db = testDb!.db;
    expect(await runCli(['grant', email], env())).toEqual({ code: 0, stdout: `${email} is now a system admin.\n`, stderr: '' });
    expect(await readSystemAdmin(db, email)).toBe(true);
    expect(await runCli(['revoke', email.toUpperCase()], env())).toMatchObject({ code: 0, stdout: `${email} is no longer a system admin.\n` });
    expect(await readSystemAdmin(db, email)).toBe(false);
    const unknown = await runCli(['grant', 'nobody@example.com'], env());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^No person with the e-mail nobody@example.com has signed in yet/);
    // On Postgres the api opens no operator socket and keeps no PGlite data.
    expect(existsSync(join(dataDir, 'api-operator.sock'))).toBe(false);
    expect(existsSync(join(dataDir, 'api'))).toBe(false);
  });
});
