import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { describe, expect, it } from 'vitest';
import { migrations, schema } from '../db/index.js';
import { organizations, persons } from '../db/schema/index.js';
import { expectLedgerConsistent } from '../testing/ledger-invariant.js';
import { runOperation } from '../operator/operations.js';
import { commands } from './commands.js';
import { balanceNanos } from '../domain/credit/ledger.js';

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
});
