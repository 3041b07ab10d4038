import type { FastifyInstance } from 'fastify';

/**
 * Runs `round` every `everyMs` on this instance, never two at once (a round still running when the
 * next is due makes that one skip), logs a round that throws and tries again at the next, and
 * waits for a running round when the app closes. `afterRound` lets tests wait for rounds.
 */
export function repeatRounds(
  fastify: FastifyInstance,
  options: { everyMs: number; round: () => Promise<void>; failure: string; afterRound?: (() => void) | undefined },
) {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= options
      .round()
      .catch((error: unknown) => fastify.log.error({ err: error }, options.failure))
      .finally(() => {
        running = undefined;
        options.afterRound?.();
      });
  }, options.everyMs);
  fastify.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
  });
}
