import type { WebhookEventType } from '@meterway/contracts';

/** What each event an endpoint can be sent means, in one line (issue #23; the payloads are on /docs). */
export const eventTypeDescriptions: Record<WebhookEventType, string> = {
  'balance.low': 'The balance fell below the low-balance alert threshold.',
  'key.budget_threshold': "A key's spend this month reached 50, 80 or 100 % of its budget.",
  'credit.added': 'Credit was added: a top-up, an auto top-up or a grant.',
  'auto_top_up.failed': 'An auto top-up charge failed, which turns auto top-up off.',
  'key.blocked_caller': "A key's owner blocked a client address or an end user.",
};
