import type { Database } from '@meterway/db';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/clock.js';
import { claimDueMessages, type CourierMessage, enqueueMessage, markFailed, markSent } from '../domain/courier-queue.js';
import type { Mailer } from './mailer.js';

/** Six attempts: at once, then after 1, 2, 4, 8 and 16 minutes (half an hour of outage), then abandoned. */
export const courierPolicy = { maxAttempts: 6, firstRetryMs: 60_000, maxRetryMs: 30 * 60_000, batch: 20 };

export type CourierAttempt = { id: string; template: string; attempts: number; outcome: 'sent' | 'retry' | 'abandoned' };

type CourierDeps = {
  db: Database;
  /** What actually sends (SMTP, counted by the metrics wrapper): called once per attempt. */
  transport: Mailer;
  clock: Clock;
  log: FastifyBaseLogger;
  pollIntervalMs: number;
  onAttempt?: (attempt: CourierAttempt) => void;
};

export type Courier = Mailer & { start: () => void; drain: () => Promise<void>; close: () => Promise<void> };

/**
 * Kratos' courier: `send` only queues the mail (a row in courier_messages) and wakes the worker,
 * so a request never waits on SMTP and an outage fails no sign-up, recovery or verification. The
 * worker sends what is due, retries failures with backoff, and abandons a mail after the last
 * attempt with a warning that names it but never shows its code or link.
 */
export function createCourier(deps: CourierDeps): Courier {
  let timer: NodeJS.Timeout | undefined;
  let draining: Promise<void> | undefined;
  let closed = false;

  const attempt = async (message: CourierMessage) => {
    const now = () => deps.clock.now();
    try {
      await deps.transport.send({
        to: message.recipient,
        template: message.template,
        subject: message.subject,
        text: message.textBody,
        html: message.htmlBody,
      });
    } catch (error) {
      const attempts = message.sendCount + 1;
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, 300);
      const retryAt = attempts < courierPolicy.maxAttempts ? new Date(now().getTime() + backoffMs(attempts)) : undefined;
      await markFailed(deps.db, message, { error: reason, retryAt, now: now() });
      const about = { messageId: message.id, template: message.template, attempts, error: reason };
      if (retryAt) deps.log.info({ ...about, retryAt: retryAt.toISOString() }, 'courier: mail not sent, will retry');
      else deps.log.warn(about, 'courier: mail abandoned after its last attempt');
      deps.onAttempt?.({ id: message.id, template: message.template, attempts, outcome: retryAt ? 'retry' : 'abandoned' });
      return;
    }
    await markSent(deps.db, message, now());
    deps.onAttempt?.({ id: message.id, template: message.template, attempts: message.sendCount + 1, outcome: 'sent' });
  };

  const drainOnce = async () => {
    for (;;) {
      const due = await claimDueMessages(deps.db, deps.clock.now(), courierPolicy.batch);
      // UPDATE … RETURNING keeps no order: mail goes out in the order it was queued.
      for (const message of due.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())) await attempt(message);
      if (due.length < courierPolicy.batch || closed) return;
    }
  };

  /** One drain at a time: each call runs a whole drain after the one under way, so nothing queued meanwhile waits for a poll. */
  const drain = (): Promise<void> => {
    const next = (draining ?? Promise.resolve()).then(() =>
      drainOnce().catch((error: unknown) => deps.log.warn({ err: error }, 'courier: the queue could not be read, retrying at the next poll')),
    );
    draining = next;
    void next.finally(() => {
      if (draining === next) draining = undefined;
    });
    return next;
  };

  const poll = () => {
    if (closed) return;
    timer = setTimeout(() => void drain().finally(poll), deps.pollIntervalMs);
    timer.unref();
  };

  return {
    send: async (mail) => {
      await enqueueMessage(deps.db, mail, deps.clock.now());
      if (!closed) void drain();
    },
    start: poll,
    drain,
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await draining;
    },
  };
}

const backoffMs = (attempts: number) => Math.min(courierPolicy.maxRetryMs, courierPolicy.firstRetryMs * 2 ** (attempts - 1));
