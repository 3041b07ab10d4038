import type { Database } from '@meterway/db';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/clock.js';
import { type SweepCounts, sweepExpired } from '../domain/sweep-expired.js';

export type Sweeper = { start: () => void; sweep: () => Promise<SweepCounts>; close: () => Promise<void> };

type SweeperDeps = {
  db: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  sessionIdleTimeoutMs: number;
  intervalMs: number;
  onSweep?: (counts: SweepCounts) => void;
};

/**
 * Deletes expired rows every `intervalMs` (the app starts it when ready and closes it with the
 * server). Every instance sweeps; the DELETEs are idempotent, so overlapping sweeps are harmless.
 */
export function createSweeper(deps: SweeperDeps): Sweeper {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let closed = false;

  const sweep = async () => {
    const counts = await sweepExpired(deps.db, deps.clock.now(), deps.sessionIdleTimeoutMs);
    if (Object.values(counts).some((count) => count > 0)) deps.log.info({ deleted: counts }, 'identity sweeper: expired rows deleted');
    deps.onSweep?.(counts);
    return counts;
  };
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => {
      running = sweep()
        .catch((error: unknown) => deps.log.warn({ err: error }, 'identity sweeper: sweep failed, retrying at the next interval'))
        .finally(schedule);
    }, deps.intervalMs);
    timer.unref();
  };

  return {
    start: schedule,
    sweep,
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await running;
    },
  };
}
