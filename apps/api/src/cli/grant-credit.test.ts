import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { describe, expect, it } from 'vitest';
import { migrations, schema } from '../db/index.js';
import { expectLedgerConsistent } from '../testing/ledger-invariant.js';
import { runOperation } from '../operator/operations.js';
import { commands, usage } from './commands.js';
import { balanceNanos, creditOf } from '../domain/credit/ledger.js';
import { auditEntries, creditEntries, creditGrants, organizations, persons } from '../db/schema/index.js';
import { eq } from 'drizzle-orm';

const testDb = setupTestDb({ schema, migrations });

async function person(email: string) {
  const organizationId = randomUUID();
  await testDb.db.insert(organizations).values({ id: organizationId, name: "Ada's organisation" });
  await testDb.db.insert(persons).values({ id: randomUUID(), identityId: randomUUID(), email, organizationId });
  return organizationId;
}

const grantCredit = (args: string[]) =>
  commands['grant-credit']!.run(args, { execute: (name, input) => runOperation(testDb.db, name, input), systemAdminEmails: [] });

describe('npm run admin -- grant-credit', () => {
  it('posts an adjustment through the ledger and reports the new balance', async () => {
    const organizationId = await person('ada@example.com');
    expect(await grantCredit(['ADA@example.com', '12.50', 'launch', 'promotion'])).toBe(
      "Granted $12.50 to Ada's organisation (ada@example.com); balance now $12.50.",
    );
    expect(await grantCredit(['ada@example.com', '-2.5'])).toBe("Took back $2.50 from Ada's organisation (ada@example.com); balance now $10.00.");
    expect(await balanceNanos(testDb.db, organizationId)).toBe(10_000_000_000n);
    await expectLedgerConsistent(testDb.db);
  });

  it('never takes the balance below zero, and says why', async () => {
    const organizationId = await person('grace@example.com');
    await grantCredit(['grace@example.com', '1']);
    await expect(grantCredit(['grace@example.com', '-1.01'])).rejects.toThrow('This would take the credit balance below zero.');
    expect(await balanceNanos(testDb.db, organizationId)).toBe(1_000_000_000n);
    await expectLedgerConsistent(testDb.db);
  });

  it('refuses bad arguments before touching anything, and an unknown e-mail', async () => {
    for (const args of [[], ['ada@example.com'], ['ada@example.com', 'ten'], ['ada@example.com', '1.001'], ['nobody', '5']]) {
      await expect(grantCredit(args)).rejects.toThrow(/^grant-credit takes an e-mail address/);
    }
    await expect(grantCredit(['nobody@example.com', '5'])).rejects.toThrow(/^No person with the e-mail nobody@example.com has signed in yet/);
    await expect(grantCredit(['ada@example.com', '0'])).rejects.toThrow('The amount must not be zero.');
  });

  it('with --expires grants promotional credit usable through that day: expiring at 00:00 UTC the day after, with its note', async () => {
    const organizationId = await person('lin@example.com');
    expect(await grantCredit(['lin@example.com', '25', 'trial', 'credit', '--expires', '2099-12-31'])).toBe(
      "Granted $25.00 of promotional credit to Ada's organisation (lin@example.com), usable through 2099-12-31 (expires 2100-01-01T00:00:00.000Z); balance now $25.00.",
    );
    expect(await grantCredit(['lin@example.com', '--expires=2099-06-30', '5', 'support'])).toMatch(/usable through 2099-06-30 .*balance now \$30\.00\.$/);
    expect(await creditOf(testDb.db, organizationId)).toMatchObject({ balanceNanos: 30_000_000_000n, promotionalNanos: 30_000_000_000n });
    const grants = await testDb.db.select().from(creditGrants).where(eq(creditGrants.organizationId, organizationId)).orderBy(creditGrants.expiresAt);
    expect(grants.map((grant) => [grant.note, grant.expiresAt.toISOString(), grant.remainingNanos])).toEqual([
      ['support', '2099-07-01T00:00:00.000Z', 5_000_000_000n],
      ['trial credit', '2100-01-01T00:00:00.000Z', 25_000_000_000n],
    ]);
    const entries = await testDb.db.select().from(creditEntries).where(eq(creditEntries.organizationId, organizationId));
    expect(entries.map((entry) => [entry.kind, entry.reason]).sort()).toEqual([
      ['grant', 'support'],
      ['grant', 'trial credit'],
    ]);
    expect(entries.map((entry) => entry.reference).sort()).toEqual(grants.map((grant) => grant.id).sort());
    const audit = await testDb.db.select().from(auditEntries).where(eq(auditEntries.organizationId, organizationId));
    expect(audit).toContainEqual(
      expect.objectContaining({
        actorEmail: 'system',
        action: 'credit.granted',
        target: '$25.00',
        changes: { balance: { from: 0, to: 25 }, note: { to: 'trial credit' }, expiresAt: { to: '2100-01-01T00:00:00.000Z' } },
      }),
    );
    await expectLedgerConsistent(testDb.db);
  });

  it('says in its help what the date means', () => {
    expect(usage()).toContain('grant-credit <email> <dollars> [note] [--expires YYYY-MM-DD]');
    expect(usage()).toContain('what is left of it expires at the end of the day, 00:00 UTC the day after.');
  });

  it('refuses a grant that is not positive, has no note or has expired, changing nothing', async () => {
    const organizationId = await person('mo@example.com');
    await expect(grantCredit(['mo@example.com', '-5', 'trial', '--expires', '2099-01-01'])).rejects.toThrow('A promotional grant must be a positive amount.');
    await expect(grantCredit(['mo@example.com', '0', 'trial', '--expires', '2099-01-01'])).rejects.toThrow('A promotional grant must be a positive amount.');
    await expect(grantCredit(['mo@example.com', '5', 'trial', '--expires', '2020-01-01'])).rejects.toThrow(
      'A promotional grant must expire in the future; 2020-01-02T00:00:00.000Z has passed.',
    );
    await expect(grantCredit(['mo@example.com', '5', '--expires', '2099-01-01'])).rejects.toThrow('grant-credit with --expires needs a note');
    for (const expires of [
      ['--expires'],
      ['--expires', '31.12.2099'],
      ['--expires', '2099-02-30'],
      ['--expires=2099-13-01'],
      ['--expires', '2099-01-01', '--expires=2099-01-02'],
    ]) {
      await expect(grantCredit(['mo@example.com', '5', 'trial', ...expires])).rejects.toThrow(/^--expires takes one date, YYYY-MM-DD/);
    }
    expect(await creditOf(testDb.db, organizationId)).toEqual({ balanceNanos: 0n, owedNanos: 0n, promotionalNanos: 0n });
    expect(await testDb.db.select().from(creditGrants).where(eq(creditGrants.organizationId, organizationId))).toEqual([]);
  });
});
