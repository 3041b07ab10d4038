import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { flowCodes, flows, rateLimits, sessions } from '../db/schema/index.js';
import type { SweepCounts } from '../domain/sweep-expired.js';
import { csrfOf, logIn, logOut, signUp } from '../testing/flows.js';
import { setupIdentityServer, uniqueEmail } from '../testing/identity-server.js';

// As `kratos cleanup sql` does, expired flows, codes, sessions and rate-limit windows are deleted
// by a sweeper the app runs; the test clock jumps a day ahead and the next sweep is awaited.

const waiting: ((counts: SweepCounts) => void)[] = [];
const t = setupIdentityServer({ sweep: { intervalMs: 20, onSweep: (counts) => waiting.splice(0).forEach((resolve) => resolve(counts)) } });
/** The next sweep that starts after this call (the one under way may have read the clock already). */
const sweepAfterNow = async () => {
  await new Promise<SweepCounts>((resolve) => waiting.push(resolve));
  return new Promise<SweepCounts>((resolve) => waiting.push(resolve));
};
const day = 24 * 60 * 60 * 1000;

const rowCounts = async () => {
  const rows = async (table: typeof flows | typeof flowCodes | typeof sessions | typeof rateLimits) =>
    (await t.testDb.db.select({ n: count() }).from(table))[0]?.n;
  return { flows: await rows(flows), codes: await rows(flowCodes), sessions: await rows(sessions), rateLimits: await rows(rateLimits) };
};

/** A day of one person's traffic: sign-up (flows, a code, a session), logout, a failed login, a recovery mail. */
async function aDayOfTraffic() {
  const email = uniqueEmail('sweep');
  const { api } = t.browser();
  await signUp(api, email);
  await logOut(api);
  await logIn(api, email, 'not the password at all').catch(() => undefined);
  const recovery = await api.createBrowserRecoveryFlow();
  await api.updateRecoveryFlow({ flow: recovery.id, updateRecoveryFlowBody: { method: 'code', email, csrf_token: csrfOf(recovery) } });
}

describe('the sweeper', () => {
  it('deletes what expired, so the tables stop growing day after day', async () => {
    for (let round = 0; round < 3; round++) {
      await aDayOfTraffic();
      const busy = await rowCounts();
      expect(busy.flows).toBeGreaterThanOrEqual(4);
      expect(busy.codes).toBeGreaterThanOrEqual(2);
      expect(busy.rateLimits).toBeGreaterThanOrEqual(3);
      t.clock.advance(day + 60 * 60 * 1000);
      await sweepAfterNow();
      expect(await rowCounts()).toEqual({ flows: 0, codes: 0, sessions: 0, rateLimits: 0 });
    }
  });

  it('keeps a session in use and a flow that has not expired', async () => {
    const { api } = t.browser();
    await signUp(api, uniqueEmail('sweep-live'));
    const login = await t.browser().api.createBrowserLoginFlow();
    t.clock.advance(20 * 60 * 1000);
    await sweepAfterNow();
    expect((await api.toSession()).active).toBe(true);
    expect(await t.testDb.db.select({ id: flows.id }).from(flows).where(eq(flows.id, login.id))).toEqual([{ id: login.id }]);
  });
});
