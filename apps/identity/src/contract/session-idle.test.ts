import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { sessions } from '../db/schema/sessions.js';
import { signUp } from '../testing/flows.js';
import { failure, setupIdentityServer, uniqueEmail } from '../testing/identity-server.js';

// ASVS 3.3.2: beside its 24-hour lifespan a session ends after SESSION_IDLE_TIMEOUT (30 minutes)
// without use. Use is recorded at most once a minute, so whoami does not write on every call.

const t = setupIdentityServer();
const minute = 60_000;

const lastActiveAt = async (sessionId: string) =>
  (await t.testDb.db.select({ at: sessions.lastActiveAt }).from(sessions).where(eq(sessions.id, sessionId)))[0]?.at.getTime();

describe('the idle timeout', () => {
  it('keeps a session that is used, and ends one left alone for 30 minutes', async () => {
    const { api } = t.browser();
    await signUp(api, uniqueEmail('idle'));
    for (let step = 0; step < 3; step++) {
      t.clock.advance(29 * minute);
      expect((await api.toSession()).active).toBe(true);
    }
    t.clock.advance(30 * minute);
    expect((await failure(api.toSession())).status).toBe(401);
  });

  it('records use at most once a minute', async () => {
    const { api } = t.browser();
    await signUp(api, uniqueEmail('idle-write'));
    const { id } = await api.toSession();
    const recorded = await lastActiveAt(id);

    t.clock.advance(30_000);
    await api.toSession();
    expect(await lastActiveAt(id)).toBe(recorded);

    t.clock.advance(31_000);
    await api.toSession();
    // The test clock also runs with real time: the new record is at least the 61 s later.
    expect(await lastActiveAt(id)).toBeGreaterThanOrEqual((recorded ?? 0) + 61_000);
  });
});
