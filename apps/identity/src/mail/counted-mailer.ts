import type { Mailer } from './mailer.js';

type MailCounter = { mail: (outcome: 'sent' | 'failed') => void };

/** Counts every message the transport takes (sent) or refuses (failed), and passes the failure on. */
export function countedMailer(transport: Mailer, metrics: MailCounter): Mailer {
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
