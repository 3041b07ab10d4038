import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { organizations } from '../db/schema/index.js';
import { systemActor } from '../domain/audit/record-audit.js';
import { postPromotionalGrant } from '../domain/credit/grant-credit.js';
import { creditOf } from '../domain/credit/ledger.js';
import { expectLedgerConsistent } from '../testing/ledger-invariant.js';
import { setupTestApp } from '../testing/setup-test-app.js';

const t = setupTestApp({ GRANT_EXPIRY_INTERVAL_MS: '100' });

describe('the grant expiry sweep of a running api', () => {
  it('takes an expired grant out of the balance within a round, and leaves a live one', async () => {
    const organizationId = randomUUID();
    await t.testDb.db.insert(organizations).values({ id: organizationId, name: 'Sweep test' });
    const now = Date.now();
    // Given a moment ago, expired a second ago.
    await postPromotionalGrant(
      t.testDb.db,
      { organizationId, amountNanos: 2_000_000_000n, note: 'trial', expiresAt: new Date(now - 1_000), actor: systemActor },
      new Date(now - 2_000),
    );
    await postPromotionalGrant(t.testDb.db, {
      organizationId,
      amountNanos: 3_000_000_000n,
      note: 'support',
      expiresAt: new Date(now + 3_600_000),
      actor: systemActor,
    });

    await vi.waitFor(
      async () =>
        expect(await creditOf(t.testDb.db, organizationId)).toEqual({ balanceNanos: 3_000_000_000n, owedNanos: 0n, promotionalNanos: 3_000_000_000n }),
      {
        timeout: 10_000,
        interval: 50,
      },
    );
    await expectLedgerConsistent(t.testDb.db);
  });
});
