import { readFileSync } from 'node:fs';
import { webhookEventTypes, type WebhookEventType, webhookToleranceSeconds } from '@meterway/contracts';
import { packagePath } from '@meterway/service';
import { codeBlock } from './code-block.js';
import { h2, h3 } from './docs-headings.js';

/** The receiver's check, exactly the file the webhook tests run (docs/webhooks.md shows it too). */
const verificationSnippet = readFileSync(packagePath(import.meta.url, 'examples/verify-webhook-signature.mjs'), 'utf8').trimEnd();

const eventDescriptions: Record<WebhookEventType, string> = {
  'balance.low': 'The balance fell below the low-balance alert you set: <code>balanceAmount</code>, <code>thresholdAmount</code>.',
  'key.budget_threshold':
    'A key reached 50, 80 or 100 % of its monthly budget (your alert settings): <code>keyId</code>, <code>name</code>, <code>kind</code>, <code>percent</code>, <code>spentAmount</code>, <code>budgetAmount</code>.',
  'credit.added':
    'Credit was added: a top-up, an auto top-up, a promotional grant, a won dispute or an adjustment: <code>entryId</code>, <code>kind</code>, <code>amount</code>, <code>balanceAfterAmount</code>.',
  'auto_top_up.failed': 'An auto top-up charge was declined and auto top-up turned off: <code>chargeId</code>, <code>reason</code>, <code>amount</code>.',
  'key.blocked_caller':
    'Someone blocked a client address or an end user on a key: <code>keyId</code>, <code>name</code>, <code>kind</code>, <code>clientAddress</code> or <code>endUser</code>.',
};

/** Webhooks: the events, the signature and how to check it, retries. `webhooksPage` is the console's page, escaped for an attribute. */
export function webhooksSection({ webhooksPage }: { webhooksPage: string }): string {
  const rows = webhookEventTypes.map((type) => `<tr><td><code>${type}</code></td><td>${eventDescriptions[type]}</td></tr>`).join('');
  return `
${h2('webhooks')}
<p>Meterway tells your servers what happened to your account. Register an endpoint URL on the console's <a href="${webhooksPage}">Webhooks</a> page and pick its events; each event is POSTed to it as JSON, <code>{ "id": "evt_…", "type", "createdAt", "data" }</code>, amounts in dollars.</p>
<div class="table-wrap"><table><thead><tr><th>Event</th><th>When, and its <code>data</code></th></tr></thead><tbody>${rows}</tbody></table></div>
${h3('webhooks-signature', 'Checking the signature')}
<p>Each delivery carries <code>Meterway-Event-Id</code> (the event's id, the same on every retry: use it to ignore a repeat) and <code>Meterway-Signature: t=&lt;unix seconds&gt;,v1=&lt;hex HMAC-SHA256 of "t.raw body"&gt;</code>, keyed with the endpoint's signing secret (<code>whsec_…</code>, shown once when you add the endpoint). Check it on the raw body, before parsing the JSON, and refuse a timestamp more than ${webhookToleranceSeconds} seconds old, so a captured delivery cannot be replayed:</p>
${codeBlock(verificationSnippet, 'js', 'verify-webhook-signature.mjs (Node)')}
${h3('webhooks-retries', 'Retries')}
<p>A delivery succeeds when your endpoint answers 2xx within 10 seconds (redirects are not followed). Otherwise it is retried after about 30 seconds, 2 minutes, 10 minutes, 30 minutes, 1, 2, 4 and 8 hours, then every 8 hours, until 24 hours after the event. The console lists each endpoint's latest deliveries with their attempts. In production an endpoint must be an <code>https://</code> URL on a public address; in development <code>http://localhost</code> works.</p>`;
}
