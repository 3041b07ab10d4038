import type { IdentityMetrics } from '../plugins/metrics.js';
import type { Mailer } from './mailer.js';

/** Counts every message the transport takes (sent) or refuses (failed), and passes the failure on. */
export function countedMailer(transport: Mailer, metrics: Pick<IdentityMetrics, 'mail'>): Mailer {
  return {
    send: async (mail) => {
      try {
        await transport.send(mail);
      } catch (error) {
        metrics.mail('failed');
        throw error;
      }
      metrics.mail('sent');
    },
  };
}
