import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { creditGrants, organizations, persons } from '../../db/schema/index.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { systemActor } from '../audit/record-audit.js';
import { grantCredit, postPromotionalGrant } from './grant-credit.js';
import { creditOf, postEntry, takeBack } from './ledger.js';

const testDb = setupTestDb({ schema, migrations });
afterEach(async () => expectLedgerConsistent(testDb.db));

const dollars = (amount: number) => BigInt(Math.round(amount * 1e9));
const now = new Date('2030-06-01T12:00:00.000Z');

async function organization(paid: number) {
  const organizationId = randomUUID();
  await testDb.db.insert(organizations).values({ id: organizationId, name: 'Grant test' });
  if (paid > 0) await testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: dollars(paid), reference: randomUUID() }));
  return organizationId;
}

const grant = (organizationId: string, amount: number, expiresAt: string) =>
  postPromotionalGrant(testDb.db, { organizationId, amountNanos: dollars(amount), note: 'trial', expiresAt: new Date(expiresAt), actor: systemActor }, now);

const remaining = async (organizationId: string) =>
  (await testDb.db.select().from(creditGrants).where(eq(creditGrants.organizationId, organizationId)).orderBy(creditGrants.expiresAt)).map(
    (row) => row.remainingNanos,
  );

describe('promotional grants and the other debits', () => {
  it('a refund takes paid credit first; only what the paid credit cannot cover comes from the grants, soonest expiry first', async () => {
    const organizationId = await organization(10);
    await grant(organizationId, 4, '2030-09-01T00:00:00.000Z');
    await grant(organizationId, 2, '2030-07-01T00:00:00.000Z');

    await testDb.db.transaction((tx) => takeBack(tx, { organizationId, kind: 'refund', amountNanos: dollars(3), reference: randomUUID() }));
    expect(await creditOf(testDb.db, organizationId)).toEqual({ balanceNanos: dollars(13), owedNanos: 0n, promotionalNanos: dollars(6) });

    // $7 of paid credit left: a $8 take-back spends it and $1 of the sooner grant.
    await testDb.db.transaction((tx) => takeBack(tx, { organizationId, kind: 'dispute', amountNanos: dollars(8), reference: randomUUID() }));
    expect(await creditOf(testDb.db, organizationId)).toEqual({ balanceNanos: dollars(5), owedNanos: 0n, promotionalNanos: dollars(5) });
    expect(await remaining(organizationId)).toEqual([dollars(1), dollars(4)]);
  });

  it("an operator's negative adjustment takes paid credit first too", async () => {
    const organizationId = await organization(3);
    await testDb.db.insert(persons).values({ id: randomUUID(), identityId: randomUUID(), email: `${organizationId}@example.com`, organizationId });
    await grant(organizationId, 5, '2030-07-01T00:00:00.000Z');
    await grantCredit(testDb.db, { email: `${organizationId}@example.com`, dollars: -4 }, now);
    expect(await creditOf(testDb.db, organizationId)).toEqual({ balanceNanos: dollars(4), owedNanos: 0n, promotionalNanos: dollars(4) });
    expect(await remaining(organizationId)).toEqual([dollars(4)]);
  });

  it('a grant to an organisation that owes pays the debt first, and only the rest stays promotional', async () => {
    const organizationId = await organization(1);
    await testDb.db.transaction((tx) => takeBack(tx, { organizationId, kind: 'refund', amountNanos: dollars(3), reference: randomUUID() }));
    expect(await creditOf(testDb.db, organizationId)).toMatchObject({ balanceNanos: 0n, owedNanos: dollars(2) });
    await grant(organizationId, 5, '2030-07-01T00:00:00.000Z');
    expect(await creditOf(testDb.db, organizationId)).toEqual({ balanceNanos: dollars(3), owedNanos: 0n, promotionalNanos: dollars(3) });
  });
});
