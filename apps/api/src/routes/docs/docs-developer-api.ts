import e from 'escape-html';
import { codeBlock } from './code-block.js';
import { demoModelId, h2, h3 } from './docs-headings.js';

/** `dashboard` is the console's dashboard URL, already escaped for an attribute. */
type Links = { dashboard: string };

/** Secret keys: for servers, with the gateway (model calls) or the developer API (admin). */
export function secretKeysSection({ base, dashboard }: Links & { base: string }): string {
  return `
${h2('secret-keys')}
<p>A backend of your own calls the gateway with a <strong>secret key</strong> (<code>sk_live_…</code>) instead of a publishable key. Create one on the <a href="${dashboard}">dashboard</a> under <strong>Secret keys</strong> → <strong>New secret key</strong>. It has a budget, allowed models and caps like a publishable key, but no allowed origins; its value is shown once and stored only as a hash, so copy it into your server's secrets then. A key's <strong>scope</strong> is chosen when it is created and never changes:</p>
<ul>
  <li><strong>Gateway</strong>: calls models (<code>/v1/chat/completions</code>, <code>/v1/models</code>), from your server.</li>
  <li><strong>Admin</strong>: works on the <a href="#developer-api">developer API</a> (<code>/v1/organization/…</code>) only, never on the gateway.</li>
</ul>
<div class="callout warn"><strong>Never in a web page.</strong><p>Anyone who can open a page can copy a key from it. A request with a secret key that carries an <code>Origin</code> header, which browsers always send, is refused with <code>403 secret_key_in_browser</code>; roll or delete that key. Use a publishable key in web pages.</p></div>
${codeBlock(
  `import OpenAI from 'openai';

// On your server only. Keep the key in your server's secrets (process.env.METERWAY_SECRET_KEY).
const client = new OpenAI({ apiKey: 'sk_live_…', baseURL: '${base}' });

const completion = await client.chat.completions.create({
  model: '${demoModelId}',
  messages: [{ role: 'user', content: 'Write a haiku about metering.' }],
  max_tokens: 200,
});`,
  'js',
  'openai SDK on a server (Node)',
)}
<p>Your server may name the end user a call is made for in the <code>Meterway-End-User</code> header (your own id of the user, 1 to 255 visible characters): the key's per-end-user caps count it, and the usage list shows it. A publishable key ignores this header, since anyone could send it from a page; it takes <a href="#end-user-tokens">end-user tokens</a> instead.</p>
<p>Calls with a secret key are metered and listed like any other; the usage list and the developer API filter them by <code>secretKeyId</code>. Roll a secret key like a publishable key (<a href="#rotating-a-key">Rotating a key</a>).</p>`;
}

/** The developer API under /v1/organization, with curl examples for each route. */
export function developerApiSection({ apiUrl, dashboard }: Links & { apiUrl: string }): string {
  const api = `${apiUrl.replace(/\/+$/, '')}/v1/organization`;
  const curl = (request: string, caption: string) => codeBlock(request, 'sh', caption);
  const auth = '-H "Authorization: Bearer $METERWAY_ADMIN_KEY"';
  const keyBody = `'{"name": "Storefront", "budget": 25, "allowedOrigins": ["https://shop.example.com"], "allowedModels": ["${demoModelId}"]}'`;
  return `
${h2('developer-api')}
<p>Your servers read the organisation's balance, credit history and usage, and manage its publishable keys, over HTTP. Every request carries a <a href="#secret-keys">secret key</a> with the <strong>Admin</strong> scope: create one on the <a href="${dashboard}">dashboard</a> under <strong>Secret keys</strong> → <strong>New secret key</strong>, choose the scope <strong>Admin</strong>, and keep its value in your server's secrets.</p>
<div class="base-url"><span class="label">Base URL</span><code>${e(api)}</code></div>
<div class="endpoints">
  <div class="endpoint"><span class="method get">GET</span><code>/v1/organization/balance</code><span>The credit: <code>remainingSpendAmount</code>, <code>owedAmount</code>, <code>promotionalCreditAmount</code>, <code>nextCreditExpiry</code> (dollars).</span></div>
  <div class="endpoint"><span class="method get">GET</span><code>/v1/organization/credit-history</code><span>Top-ups, grants, refunds, disputes and adjustments, newest first.</span></div>
  <div class="endpoint"><span class="method get">GET</span><code>/v1/organization/usage</code><span>Every metered call, filtered by <code>publishableKeyId</code> or <code>secretKeyId</code>.</span></div>
  <div class="endpoint"><span class="method get">GET</span><code>/v1/organization/usage/daily</code><span>Spend per UTC day by model and key over the last <code>days</code> days (1 to 90, 30 by default), optionally one key's (<code>publishableKeyId</code> or <code>secretKeyId</code>).</span></div>
  <div class="endpoint"><span class="method get">GET</span><code>/v1/organization/publishable-keys</code><span>The publishable keys, with this month's spend.</span></div>
  <div class="endpoint"><span class="method post">POST</span><code>/v1/organization/publishable-keys</code><span>Create a key: the console's form, as JSON.</span></div>
  <div class="endpoint"><span class="method put">PUT</span><code>/v1/organization/publishable-keys/{publishableKeyId}</code><span>Update a key.</span></div>
  <div class="endpoint"><span class="method delete">DELETE</span><code>/v1/organization/publishable-keys/{publishableKeyId}</code><span>Delete a key; it stops working at once.</span></div>
</div>
${h3('developer-api-credit', 'Balance and credit history')}
${curl(`curl ${api}/balance ${auth}`, 'Balance')}
${codeBlock(`{ "remainingSpendAmount": 42.5, "owedAmount": 0, "promotionalCreditAmount": 5, "nextCreditExpiry": "2026-12-31T23:59:59.999Z" }`, 'json', 'Response')}
${curl(`curl "${api}/credit-history?limit=20" ${auth}`, 'Credit history')}
${h3('developer-api-usage', 'Usage')}
<p>Lists are token-paged, 100 items at most (<code>limit</code>): pass the answer's <code>pagination.nextPageToken</code> as <code>nextPageToken</code>, with the same filters, for the next page; <code>asc=true</code> lists oldest first.</p>
${curl(`curl "${api}/usage?secretKeyId=1b4e28ba-2fa1-41d2-883f-0016d3cca427&limit=50" ${auth}`, "Usage of one secret key's calls")}
${curl(`curl "${api}/usage?publishableKeyId=7c9e6679-7425-40de-944b-e07fc1f90ae7&nextPageToken=eyJjcmVhdGVkQXQ…" ${auth}`, "The next page of one publishable key's calls")}
${curl(`curl "${api}/usage/daily?days=7" ${auth}`, 'Spend per day, last 7 days')}
${h3('developer-api-keys', 'Publishable keys')}
<p>The same rules as the console: allowed models must be on the <a href="#models">price list</a>, a new key caps each visitor address at 30 requests a minute and $1.00 a day unless the body says otherwise, and a key of another organisation answers <code>404</code> like one that never existed. Changes appear in the console's audit log as made by <code>secret key sk_live_AbCd… (its name)</code>.</p>
${curl(`curl -X POST ${api}/publishable-keys ${auth} \\\n  -H "Content-Type: application/json" \\\n  -d ${keyBody}`, 'Create a key')}
${curl(
  `curl -X PUT ${api}/publishable-keys/7c9e6679-7425-40de-944b-e07fc1f90ae7 ${auth} \\\n  -H "Content-Type: application/json" \\\n  -d '{"name": "Storefront", "budget": 50, "allowedOrigins": ["https://shop.example.com"]}'`,
  'Update a key (controls left out stay as they are)',
)}
${curl(`curl -X DELETE ${api}/publishable-keys/7c9e6679-7425-40de-944b-e07fc1f90ae7 ${auth}`, 'Delete a key')}
${h3('developer-api-errors', 'Errors and limits')}
<p>Errors use the gateway's shape, <code>{"error": {"message", "type", "code", "param"}}</code>: <code>400 invalid_request</code> for a bad query, path or body (<code>param</code> names the field), <code>401 invalid_api_key</code> without a live admin key (a publishable key, or a deleted or rolled-away value, included), <code>403 gateway_key_not_allowed</code> for a gateway-scoped key, <code>403 secret_key_in_browser</code> for a request with an <code>Origin</code> header, <code>404 not_found</code> for a key that is not the organisation's, and <code>429 rate_limit_exceeded</code> beyond 600 requests a minute per key, with <code>Retry-After</code>. The <a href="#reference">OpenAPI document</a> describes every route with its schemas.</p>`;
}
