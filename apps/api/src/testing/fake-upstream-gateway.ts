import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { reservations } from '../db/schema/index.js';
import { openAiCompatible } from '../gateway/providers/openai-compatible.js';
import { startFakeUpstream } from './fake-upstream.js';
import { setupGateway } from './gateway-fixture.js';
import { expectLedgerConsistent } from './ledger-invariant.js';

/**
 * The gateway (setupGateway) with the fake OpenAI-compatible provider as its model provider, for
 * the calling test file: after each test the provider answers plainly again, and the file's calls
 * are settled with the ledger consistent and no hold left.
 */
export function setupFakeUpstreamGateway(timeouts: { timeoutMs: number; idleTimeoutMs: number } = { timeoutMs: 1500, idleTimeoutMs: 1000 }) {
  let started: Awaited<ReturnType<typeof startFakeUpstream>> | undefined;
  beforeAll(async () => {
    started = await startFakeUpstream();
  });
  afterAll(async () => started?.close());
  const upstream = () => {
    if (!started) throw new Error('The fake provider is started in beforeAll.');
    return started;
  };
  const t = setupGateway(() => openAiCompatible({ baseUrl: upstream().baseUrl, ...timeouts }));
  afterEach(async () => {
    upstream().setMode('ok');
    upstream().setProduced({});
    await t.settled();
    await expectLedgerConsistent(t.testDb.db);
    expect(await t.testDb.db.select().from(reservations)).toEqual([]);
  });
  return { t, upstream };
}
