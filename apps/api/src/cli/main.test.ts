import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commands, type Execute } from './commands.js';
import { main } from './main.js';
import { operatorClient } from './operator-client.js';

// In-process: what the CLI decides before it opens anything, and how it words each outcome.
const emptyDataDir = mkdtempSync(join(tmpdir(), 'meterway-admin-empty-'));
afterAll(() => rmSync(emptyDataDir, { recursive: true, force: true }));

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const printed = { out: '', err: '' };
  const code = await main(
    argv,
    { DATA_DIR: emptyDataDir, ...env },
    { out: (text) => (printed.out += `${text}\n`), err: (text) => (printed.err += `${text}\n`) },
  );
  return { code, ...printed };
}

describe('the admin CLI', () => {
  it('prints the usage with every command and exits 1 on a missing or unknown command or wrong arguments', async () => {
    const cases: [string[], RegExp][] = [
      [[], /^No command given\./],
      [['promote', 'a@example.com'], /^Unknown command "promote"\./],
      [['grant'], /^grant takes one argument, an e-mail address\./],
      [['revoke', 'a@example.com', 'extra'], /^revoke takes one argument, an e-mail address\./],
      [['grant', 'not-an-email'], /^grant takes one argument/],
    ];
    for (const [argv, message] of cases) {
      const result = await run(argv);
      expect(result.code).toBe(1);
      expect(result.out).toBe('');
      expect(result.err).toMatch(message);
      expect(result.err).toContain('Usage: npm run admin -- <command> [arguments]');
      expect(result.err).toMatch(/\n {2}grant <email> +make the person with this e-mail a system admin\n/);
      expect(result.err).toMatch(/\n {2}revoke <email> +take system admin away from the person with this e-mail\n/);
    }
    expect(await run(['help'])).toMatchObject({ code: 0, err: '', out: expect.stringContaining('Commands:') });
    // Bad arguments open nothing.
    expect(existsSync(join(emptyDataDir, 'api'))).toBe(false);
  });

  it('refuses a DATA_DIR the api has never used instead of creating a database there', async () => {
    const result = await run(['grant', 'a@example.com']);
    expect(result).toMatchObject({ code: 1, out: '' });
    expect(result.err).toMatch(new RegExp(`^No api data in ${join(emptyDataDir, 'api')}: the api has never run with this DATA_DIR`));
    expect(existsSync(join(emptyDataDir, 'api'))).toBe(false);
  });

  it('names every bad variable of the environment, as the api does', async () => {
    const result = await run(['grant', 'a@example.com'], { API_PORT: 'abc' });
    expect(result.code).toBe(1);
    expect(result.err).toContain('API_PORT: must be a port number between 1 and 65535 (got "abc")');
  });

  it('says when nothing changed, and when SYSTEM_ADMIN_EMAILS still makes the person an admin', async () => {
    const unchanged = (async (_name, input) => ({ email: input.email, systemAdmin: _name === 'grant-admin', changed: false })) as Execute;
    const changed = (async (_name, input) => ({ email: input.email, systemAdmin: _name === 'grant-admin', changed: true })) as Execute;
    const context = (execute: Execute, systemAdminEmails: string[] = []) => ({ execute, systemAdminEmails });
    expect(await commands.grant!.run(['ada@example.com'], context(unchanged))).toBe('ada@example.com was already a system admin; nothing changed.');
    expect(await commands.revoke!.run(['ada@example.com'], context(unchanged))).toBe('ada@example.com was not a system admin; nothing changed.');
    expect(await commands.revoke!.run(['Ada@Example.com'], context(changed, ['ada@example.com']))).toBe(
      'Ada@Example.com: system-admin flag cleared, but SYSTEM_ADMIN_EMAILS lists this address, so they stay a system admin until it is removed there.',
    );
  });

  it('explains when a live process holds the data directory but nothing answers on the socket', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'meterway-admin-held-'));
    try {
      // As an api that could not open its socket leaves it: the directory locked by a live process.
      mkdirSync(join(dataDir, 'api'));
      writeFileSync(join(dataDir, 'api.lock'), String(process.pid));
      const client = operatorClient({ dataDir, databaseUrl: undefined, waitForApiMs: 300 });
      await expect(client.execute('grant-admin', { email: 'a@example.com' })).rejects.toThrow(
        `Nothing answers on ${join(dataDir, 'api-operator.sock')}, yet process ${process.pid} holds the data directory ${join(dataDir, 'api')}.`,
      );
      await client.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
