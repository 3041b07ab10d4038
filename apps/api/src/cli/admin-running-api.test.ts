import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, insertPerson, readSystemAdmin, runCli, startApi, uniqueEmail, withDataDir } from './testing/processes.js';

// PGlite with the api running: it holds DATA_DIR, so the CLI must go through its operator socket.
const dataDir = mkdtempSync(join(tmpdir(), 'meterway-admin-'));
const socket = join(dataDir, 'api-operator.sock');
const email = uniqueEmail('grace');
const admin = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });
let api: Api | undefined;

beforeAll(() => withDataDir(dataDir, (db) => insertPerson(db, email)), 30_000);
afterAll(async () => {
  await api?.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run admin on PGlite while the api runs', () => {
  it('goes through the api; a crashed api blocks neither the CLI nor the next api; shutdown removes the socket', async () => {
    api = await startApi({ DATA_DIR: dataDir });
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    const [granted, unknown] = await Promise.all([admin('grant', email), admin('revoke', 'nobody@example.com')]);
    expect(granted).toEqual({ code: 0, stdout: `${email} is now a system admin.\n`, stderr: '' });
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/^No person with the e-mail nobody@example.com has signed in yet/);

    // A crash leaves the socket file and the lock behind; nobody listens and the lock's process is gone.
    await api.stop('SIGKILL');
    expect(existsSync(socket)).toBe(true);
    expect(await admin('revoke', email)).toEqual({ code: 0, stdout: `${email} is no longer a system admin.\n`, stderr: '' });

    api = await startApi({ DATA_DIR: dataDir });
    expect(await admin('grant', email)).toEqual({ code: 0, stdout: `${email} is now a system admin.\n`, stderr: '' });
    expect(await api.stop('SIGTERM')).toBe(0);
    expect(existsSync(socket)).toBe(false);
    expect(await withDataDir(dataDir, (db) => readSystemAdmin(db, email))).toBe(true);
  }, 60_000);
});
