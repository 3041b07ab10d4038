import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPerson, readSystemAdmin, runCli, uniqueEmail, withDataDir } from './testing/processes.js';

// PGlite with no api running: the CLI, a process of its own, opens DATA_DIR itself.
const dataDir = mkdtempSync(join(tmpdir(), 'meterway-admin-'));
const email = uniqueEmail('Ada.Lovelace');
const admin = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });

beforeAll(() => withDataDir(dataDir, (db) => insertPerson(db, email)), 30_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm run admin on PGlite while the api is stopped', () => {
  it('grants system admin by e-mail in any case', async () => {
    expect(await admin('grant', email.toLowerCase())).toEqual({ code: 0, stdout: `${email} is now a system admin.\n`, stderr: '' });
    expect(await withDataDir(dataDir, (db) => readSystemAdmin(db, email))).toBe(true);
  });

  it('revokes it, and leaves the directory unlocked', async () => {
    expect(await admin('revoke', email)).toEqual({ code: 0, stdout: `${email} is no longer a system admin.\n`, stderr: '' });
    expect(existsSync(join(dataDir, 'api.lock'))).toBe(false);
    expect(await withDataDir(dataDir, (db) => readSystemAdmin(db, email))).toBe(false);
  });

  it('fails with exit 1 for an e-mail nobody has signed in with', async () => {
    const result = await admin('grant', 'nobody@example.com');
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe('No person with the e-mail nobody@example.com has signed in yet; a person exists after their first sign-in to the console.\n');
  });
});
