/** After the nth failed attempt, the next comes this long after it (the last delay repeats), give or take a tenth. */
const retryDelaysMs = [30_000, 2 * 60_000, 10 * 60_000, 30 * 60_000, 60 * 60_000, 2 * 60 * 60_000, 4 * 60 * 60_000, 8 * 60 * 60_000];

/** How long after its event a delivery is retried before it fails. */
export const retryForMs = 24 * 60 * 60_000;

/**
 * When a delivery that failed its `attemptCount`th attempt at `now` is tried next, or null when it
 * gives up: the delay grows (30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h…) with ±10 %
 * jitter, so endpoints that failed together are not retried together; the last attempt is at 24 h.
 */
export function nextAttemptAt(attemptCount: number, eventCreatedAt: Date, now: Date, random: () => number = Math.random): Date | null {
  const deadline = eventCreatedAt.getTime() + retryForMs;
  if (now.getTime() >= deadline) return null;
  const delay = retryDelaysMs[Math.min(attemptCount, retryDelaysMs.length) - 1] ?? retryDelaysMs[0]!;
  const next = now.getTime() + Math.round(delay * (0.9 + 0.2 * random()));
  return new Date(Math.min(next, deadline));
}
