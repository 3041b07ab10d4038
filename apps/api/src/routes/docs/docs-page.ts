import e from 'escape-html';
import { codeBlock } from './code-block.js';
import { docsScript, docsStyle } from './docs-assets.js';
import { developerApiSection, secretKeysSection } from './docs-developer-api.js';
import { demoModelId, h2, h3, sections } from './docs-headings.js';
import { webhooksSection } from './docs-webhooks.js';

export type DocsModel = { id: string; inputPerMillion: number; cachedInputPerMillion: number | null; outputPerMillion: number; maxOutputTokens: number };
export type DocsPageInput = { apiUrl: string; consoleUrl: string; models: DocsModel[]; priceListVersion?: string };

const usd = (value: number) =>
  Number.isFinite(value) ? `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })}` : e(String(value));

const logo = `<svg width="22" height="22" viewBox="0 0 24 24" aria-hidden="true"><rect width="24" height="24" rx="6" fill="#fff" fill-opacity=".18"/><path d="M5 17V7l7 6 7-6v10" fill="none" stroke="#fff" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

/** The developer quickstart served at GET /docs: one self-contained page, every interpolated value escaped. */
export function renderDocsPage({ apiUrl, consoleUrl, models, priceListVersion }: DocsPageInput): string {
  const base = `${apiUrl.replace(/\/+$/, '')}/v1`;
  const consoleBase = consoleUrl.replace(/\/+$/, '');
  const dashboard = e(`${consoleBase}/dashboard`);
  const usagePage = e(`${consoleBase}/chat-completions`);
  const webhooksPage = e(`${consoleBase}/webhooks`);
  const modelsPage = e(`${consoleBase}/models`);
  const openapi = e(`${apiUrl.replace(/\/+$/, '')}/openapi.json`);

  const toc = `<nav class="toc" aria-label="On this page"><p class="toc-title">On this page</p><ol>${sections.map(([id, title]) => `<li><a href="#${id}">${title}</a></li>`).join('')}</ol></nav>`;

  const overview = `
<p class="eyebrow">Developer quickstart</p>
<h1>Call AI models from your browser app</h1>
<p class="lead">Meterway is an OpenAI-compatible API that your front end calls directly with a publishable key. Every call is metered and paid from your prepaid credit, within the budget you set for the key.</p>
${h2('overview')}
<div class="base-url"><span class="label">Base URL</span><code>${e(base)}</code></div>
<p>The API follows OpenAI's Chat Completions API, so existing clients work by changing the base URL and the key.</p>
<div class="endpoints">
  <div class="endpoint"><span class="method post">POST</span><code>/v1/chat/completions</code><span>Create a chat completion, streamed over server-sent events with <code>stream: true</code>, or as one JSON response.</span></div>
  <div class="endpoint"><span class="method get">GET</span><code>/v1/models</code><span>List the models you can call.</span></div>
</div>`;

  const authentication = `
${h2('authentication')}
<p>Every request carries a publishable key as a bearer token: <code>Authorization: Bearer pk_live_…</code>. Create keys in the <a href="${dashboard}">console</a>, each with its allowed origins and monthly budget.</p>
${codeBlock(`POST ${base}/chat/completions\nAuthorization: Bearer pk_live_…\nContent-Type: application/json\nOrigin: https://app.example.com`, 'http', 'Request headers')}
<p>Publishable keys are meant to live in browser code. They are not secret; what protects them is:</p>
<ul>
  <li><strong>Allowed origins.</strong> The browser's <code>Origin</code> header must equal one of the key's allowed origins exactly: scheme, host and port. The literal entry <code>localhost</code> allows <code>http</code> and <code>https</code> localhost on any port.</li>
  <li><strong>A monthly budget</strong> per key, in USD.</li>
  <li><strong>End-user tokens</strong>, if your app has sign-in: the key can require, on every call, a token your sign-in provider issued to a signed-in user of your app. A copied key is then useless without one (see <a href="#end-user-tokens">End-user tokens</a>).</li>
  <li><strong>Caps per end user</strong>: requests per minute and dollars per day and per month for each signed-in user, or, on a key without end-user tokens, for each client address.</li>
  <li><strong>Caps per visitor address</strong>: requests per minute and dollars per day (UTC) for each client address, so one script cannot drain the key or lock your other visitors out (see <a href="#copied-key">Limits for a copied key</a>).</li>
  <li><strong>Allowed models and an output limit</strong> per key, which bound what one call can cost.</li>
  <li><strong>A per-key rate limit</strong> in requests per minute.</li>
  <li><strong>Your prepaid credit</strong>: nothing is spent beyond it.</li>
</ul>
<div class="table-wrap"><table>
  <thead><tr><th>Allowed origin entry</th><th>Accepts</th><th>Refuses (examples)</th></tr></thead>
  <tbody>
    <tr><td><code>https://app.example.com</code></td><td><code>https://app.example.com</code></td><td><code>http://app.example.com</code>, <code>https://www.example.com</code>, <code>https://app.example.com:8443</code></td></tr>
    <tr><td><code>localhost</code></td><td><code>http://localhost:5173</code>, <code>https://localhost:3000</code>, …</td><td>Any other host. Remove it before going to production.</td></tr>
  </tbody>
</table></div>
<p>Requests with a publishable key and without an <code>Origin</code> header, such as server-side code or <code>curl</code>, are refused with <code>403 origin_not_allowed</code>. Browsers add the header on their own; you never set it yourself. Your servers use a <a href="#secret-keys">secret key</a> instead.</p>
<div class="callout warn"><strong>Origin is not a secret.</strong><p>Outside a browser, anyone can send any <code>Origin</code> header, so the allowed origins stop other websites from using your key but cannot stop a determined script. If your app signs its users in, require <a href="#end-user-tokens">end-user tokens</a>: a copied key then does nothing without a signed-in user of your app, and each user meets their own caps. Without them, the caps per visitor address below are the protection. Either way the budget bounds the damage: keep each key's budget tight, and use one key per app.</p></div>
${h3('copied-key', 'Limits for a copied key')}
<p>Set these on each key in the <a href="${dashboard}">console</a> (create or edit the key):</p>
<div class="table-wrap"><table>
  <thead><tr><th>Setting</th><th>New key</th><th>Beyond it</th></tr></thead>
  <tbody>
    <tr><td><strong>Models</strong>: the models the key may call</td><td>Every priced model</td><td><code>403 model_not_allowed</code>; <code>GET /v1/models</code> lists only the allowed ones</td></tr>
    <tr><td><strong>Max output tokens per call</strong></td><td>The model's own limit</td><td>A larger <code>max_tokens</code> is reserved and forwarded at this limit</td></tr>
    <tr><td><strong>Requests per minute per visitor address</strong></td><td>30</td><td><code>429 rate_limit_exceeded</code> with <code>Retry-After</code>, for that address only</td></tr>
    <tr><td><strong>Spend per day per visitor address</strong>, USD</td><td>$1.00</td><td><code>429 client_allowance_exceeded</code> with <code>Retry-After</code> until midnight UTC, for that address only</td></tr>
    <tr><td><strong>End-user tokens</strong>: issuer, audience, JWKS URL</td><td>Off</td><td><code>401 end_user_token_required</code> or <code>401 invalid_end_user_token</code> (see <a href="#end-user-tokens">End-user tokens</a>)</td></tr>
    <tr><td><strong>Requests per minute per end user</strong></td><td>No cap</td><td><code>429 rate_limit_exceeded</code> with <code>Retry-After</code>, for that end user only</td></tr>
    <tr><td><strong>Spend per day per end user</strong>, USD</td><td>No cap</td><td><code>429 end_user_allowance_exceeded</code> with <code>Retry-After</code> until midnight UTC, for that end user only</td></tr>
    <tr><td><strong>Spend per month per end user</strong>, USD</td><td>No cap</td><td><code>429 end_user_allowance_exceeded</code> with <code>Retry-After</code> until the 1st of the next month, UTC, for that end user only</td></tr>
  </tbody>
</table></div>
<p>An <strong>end user</strong> is the signed-in user named by the <code>sub</code> of the key's end-user tokens. A key without end-user tokens treats each client address as an anonymous end user, so the caps per end user then apply per address too. Spend caps are held when a call is admitted, like the budget, so parallel calls cannot pass them.</p>
<p>The <a href="${dashboard}">dashboard</a> shows, for each key, the last 24 hours' top client addresses and end users by calls and by spend, each with a <strong>Block</strong> button. A blocked address gets <code>403 client_blocked</code> and a blocked end user <code>403 end_user_blocked</code>, at once, on every instance. An IPv6 address counts by its /64 network, which one subscriber usually has whole. Visitors behind one shared address (an office, a mobile carrier's NAT) share its caps, so raise them if your app is used that way, and let end-user tokens tell its users apart. An attacker with many addresses still meets the key's budget and rate limit: the budget is the most a copied key can cost you in a month.</p>
${h3('rotating-a-key', 'Rotating a key')}
<p>To replace a key's value, open the key in the <a href="${dashboard}">console</a> and choose <strong>Roll key</strong>. The key gets a new value and keeps its name, budget, allowed origins and this month's spend. The old value keeps working for the overlap you choose (immediately, or up to 24 hours), so you can deploy the new one first; after that, calls with it get <code>401 invalid_api_key</code>. Rolling again during an overlap stops the older value at once: only the value just replaced keeps working. Deleting a key stops both values.</p>`;

  const request = (extra: string) =>
    `{\n    model: '${demoModelId}',\n    messages: [{ role: 'user', content: 'Write a haiku about metering.' }],\n    max_tokens: 200,${extra}\n  }`;
  const quickstartFetch = `
${h2('quickstart-fetch')}
<p>No library needed: <code>fetch</code> and a few lines to read the stream.</p>
${h3('fetch-basic', 'Non-streaming')}
${codeBlock(
  `const API = '${base}';
const KEY = 'pk_live_…'; // your publishable key

const response = await fetch(\`\${API}/chat/completions\`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json', Authorization: \`Bearer \${KEY}\` },
  body: JSON.stringify(${request('')}),
});
const body = await response.json();
if (!response.ok) throw new Error(\`\${body.error.code}: \${body.error.message}\`);

console.log(body.choices[0].message.content);
console.log(body.usage); // { prompt_tokens, completion_tokens, total_tokens }`,
  'js',
)}
${h3('fetch-stream', 'Streaming')}
<p>With <code>stream: true</code> the response is a stream of server-sent events: lines of <code>data: {json}</code> separated by blank lines, each carrying a chunk of the reply, and a final <code>data: [DONE]</code>.</p>
${codeBlock(
  `const response = await fetch(\`\${API}/chat/completions\`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json', Authorization: \`Bearer \${KEY}\` },
  body: JSON.stringify(${request('\n    stream: true,')}),
});
if (!response.ok) {
  const { error } = await response.json();
  throw new Error(\`\${error.code}: \${error.message}\`);
}

const output = document.querySelector('#output');
const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
let buffer = '';
for (;;) {
  const { value, done } = await reader.read();
  if (done) break;
  buffer += value;
  const lines = buffer.split('\\n');
  buffer = lines.pop(); // keep a partial line for the next read
  for (const line of lines) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') continue; // the stream ends right after
    const chunk = JSON.parse(data);
    // the usage chunk, if you asked for it, has no choices
    output.textContent += chunk.choices[0]?.delta?.content ?? '';
  }
}`,
  'js',
)}
<p>To receive token counts on a stream, add <code>stream_options: { include_usage: true }</code>: the last chunk before <code>[DONE]</code> then has an empty <code>choices</code> array and a <code>usage</code> object.</p>`;

  const quickstartSdk = `
${h2('quickstart-sdk')}
<p>The official <code>openai</code> npm package works unchanged: point <code>baseURL</code> at Meterway and pass your publishable key.</p>
${codeBlock('npm install openai', 'sh')}
${h3('sdk-basic', 'Non-streaming')}
${codeBlock(
  `import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: '${base}',
  apiKey: 'pk_live_…',
  // The SDK refuses to run in a browser unless told to: publishable keys are made for it.
  dangerouslyAllowBrowser: true,
});

const completion = await client.chat.completions.create({
  model: '${demoModelId}',
  messages: [{ role: 'user', content: 'Write a haiku about metering.' }],
  max_tokens: 200,
});
console.log(completion.choices[0].message.content);`,
  'js',
)}
${h3('sdk-stream', 'Streaming')}
${codeBlock(
  `const stream = await client.chat.completions.create({
  model: '${demoModelId}',
  messages: [{ role: 'user', content: 'Write a haiku about metering.' }],
  max_tokens: 200,
  stream: true,
});
const output = document.querySelector('#output');
for await (const chunk of stream) {
  output.textContent += chunk.choices[0]?.delta?.content ?? '';
}`,
  'js',
)}
<p>Errors surface as <code>OpenAI.APIError</code> with <code>status</code>, <code>code</code> and <code>message</code>; see <a href="#errors">Errors</a>.</p>`;

  const endUserTokens = `
${h2('end-user-tokens')}
<p>If your app signs its users in, a key can require an <strong>end-user token</strong> on every call: a token your existing sign-in provider (Firebase Auth, Auth0, Supabase, Clerk, …) already issues to the signed-in user. Meterway checks it with the provider's public keys, so you need no backend of your own. A copied key is then useless without a signed-in user of your app, and the <a href="#copied-key">caps per end user</a> and blocks apply to each user.</p>
${h3('end-user-setup', 'Set up a key')}
<p>Open the key in the <a href="${dashboard}">console</a> (create or edit it) and fill in <strong>End-user tokens</strong>:</p>
<ul>
  <li><strong>Issuer</strong>: the tokens' <code>iss</code>, exactly.</li>
  <li><strong>Audience</strong>: a value the tokens' <code>aud</code> must contain.</li>
  <li><strong>JWKS URL</strong>: where the provider publishes its public signing keys (a JSON Web Key Set), over <code>https</code>; <code>http</code> only for <code>localhost</code>.</li>
</ul>
<p>In the key's JSON these are <code>endUserTokens: { issuer, audience, jwksUrl }</code>; <code>null</code> turns tokens off.</p>
${h3('end-user-send', 'Send the token')}
<p>Each call carries the publishable key as before and the user's current token in the <code>Meterway-User-Token</code> header:</p>
${codeBlock(`POST ${base}/chat/completions\nAuthorization: Bearer pk_live_…\nMeterway-User-Token: eyJhbGciOiJSUzI1NiIsImtpZCI6…\nContent-Type: application/json`, 'http', 'Request headers')}
${codeBlock(
  `const API = '${base}';
const KEY = 'pk_live_…'; // your publishable key

async function complete(messages) {
  const token = await getUserToken(); // from your sign-in provider, see below
  const response = await fetch(\`\${API}/chat/completions\`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: \`Bearer \${KEY}\`,
      'Meterway-User-Token': token,
    },
    body: JSON.stringify({ model: '${demoModelId}', messages, max_tokens: 200 }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(\`\${body.error.code}: \${body.error.message}\`);
  return body.choices[0].message.content;
}`,
  'js',
  'fetch',
)}
<p>With the <code>openai</code> SDK, set the header with <code>defaultHeaders</code>. Tokens expire, so do not keep one client for the life of the page: create the client for each call with a fresh token, as here, or pass the current token with each request (<code>client.chat.completions.create(body, { headers: { 'Meterway-User-Token': token } })</code>).</p>
${codeBlock(
  `import OpenAI from 'openai';

async function meterway() {
  return new OpenAI({
    apiKey: 'pk_live_…',
    baseURL: '${base}',
    dangerouslyAllowBrowser: true,
    defaultHeaders: { 'Meterway-User-Token': await getUserToken() },
  });
}

const client = await meterway();
const completion = await client.chat.completions.create({
  model: '${demoModelId}',
  messages: [{ role: 'user', content: 'Write a haiku about metering.' }],
  max_tokens: 200,
});`,
  'js',
  'openai SDK',
)}
${h3('end-user-providers', 'Sign-in providers')}
<p>Where <code>getUserToken()</code> comes from, and what to enter on the key. Replace the parts in angle brackets with your own.</p>
<div class="table-wrap"><table>
  <thead><tr><th>Provider</th><th>Issuer</th><th>Audience</th><th>JWKS URL</th></tr></thead>
  <tbody>
    <tr><td><strong>Firebase Auth</strong></td><td><code>https://securetoken.google.com/&lt;project-id&gt;</code></td><td><code>&lt;project-id&gt;</code></td><td><code>https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com</code></td></tr>
    <tr><td><strong>Auth0</strong></td><td><code>https://&lt;tenant&gt;.auth0.com/</code> (with the final slash)</td><td>Your API's audience (its identifier)</td><td><code>https://&lt;tenant&gt;.auth0.com/.well-known/jwks.json</code></td></tr>
    <tr><td><strong>Supabase</strong></td><td><code>https://&lt;project&gt;.supabase.co/auth/v1</code></td><td><code>authenticated</code></td><td><code>https://&lt;project&gt;.supabase.co/auth/v1/.well-known/jwks.json</code></td></tr>
    <tr><td><strong>Clerk</strong></td><td>Your Frontend API URL</td><td>The <code>aud</code> your JWT template sets</td><td><code>&lt;issuer&gt;/.well-known/jwks.json</code></td></tr>
  </tbody>
</table></div>
${codeBlock(
  `// Firebase Auth: the signed-in user's ID token
const getUserToken = () => auth.currentUser.getIdToken();

// Auth0: an access token for your API (request it with your API's audience)
const getUserToken = () => getAccessTokenSilently();

// Supabase: the session's access token
const getUserToken = async () => (await supabase.auth.getSession()).data.session.access_token;

// Clerk: a token from a JWT template that adds an aud claim
const getUserToken = () => getToken({ template: '<template-name>' });`,
  'js',
  'getUserToken(), one per provider',
)}
<p><strong>Supabase</strong> works only with asymmetric signing keys: tokens signed with a legacy JWT secret (HS256) are refused. <strong>Clerk</strong>'s tokens need an <code>aud</code> claim for the audience check, so use a JWT template that sets one. Any other provider works if its tokens are JWTs signed with RS256 or ES256 and it publishes its keys at a JWKS URL.</p>
${h3('end-user-checks', 'What is checked')}
<ul>
  <li>The signature, with the provider's public keys from the JWKS URL. They are fetched with a 5 second timeout and cached for 10 minutes; a token naming a key id not in the cache fetches them again (at most once every 30 seconds), so the provider's key rotations need nothing from you.</li>
  <li>The algorithm: RS256 or ES256 only. <code>none</code> and HS256 are refused.</li>
  <li><code>iss</code> equals the key's issuer and <code>aud</code> contains its audience.</li>
  <li><code>exp</code> is required and must be in the future; <code>nbf</code> and <code>iat</code> are honoured (a token issued in the future is not valid yet); clocks may differ by 30 seconds.</li>
  <li><code>sub</code>, at most 255 characters, is the end user: the one the caps per end user count, blocks name and the console lists.</li>
</ul>
<p>A call without the header on a key that requires it gets <code>401 end_user_token_required</code>; a token that fails a check gets <code>401 invalid_end_user_token</code>, whose message says why (expired, wrong issuer, wrong audience, bad signature, unknown signing key, unsupported algorithm). The token proves only that someone signed in to your app: if anyone can sign up, keep the caps per end user and per address.</p>`;

  const metering = `
${h2('metering')}
<p>Each call is paid from your prepaid credit and counted against the key's monthly budget, in three steps:</p>
<ol class="steps">
  <li><strong>Estimate.</strong> Everything the provider bills as input is counted before the call: the messages' text, names and tool calls, images at the model's largest size for their <code>detail</code> (<code>auto</code> counts as <code>high</code>), tool and function definitions, and <code>response_format</code>.</li>
  <li><strong>Reserve.</strong> The worst case, estimated input plus <code>max_tokens</code> of output for each of the <code>n</code> choices, is reserved against the key's budget and your credit.</li>
  <li><strong>Charge.</strong> When the call ends, the usage the provider reports is charged (cached input at the cached-input price) and the rest of the reservation is released.</li>
</ol>
<p>If <code>max_tokens</code> (or <code>max_completion_tokens</code>) is absent, or more than you can afford or than the model can produce, it is lowered to what the key's remaining budget and your credit can pay, within the model's own limit; the provider receives that limit under every name you used. Setting it to what you really need keeps reservations small, so concurrent calls are not refused while an earlier one is still running.</p>
<p>Fields whose cost is not on the price list are refused with <code>400</code> before the provider sees them: audio parts and audio output, file parts, image parts for a model without image prices, <code>prediction</code>, <code>web_search_options</code> and a <code>service_tier</code> other than <code>auto</code> or <code>default</code>. So is any field that is not part of OpenAI's chat-completions request (<code>Unrecognized request argument supplied</code>).</p>
<p>Cost of a call = input tokens × input price / 1,000,000 + output tokens × output price / 1,000,000, at the <a href="#models">prices below</a>. If the model provider refuses the call with an error, nothing is charged. Once it has your request it bills it, so a call you abandon is still read to its end and charged what the provider reports, and a call that times out or is cut off after the provider had it (streams end after at most half the reservation's lifetime) is charged what was reserved for it, flagged as estimated.</p>
<p>A model may be served by more than one provider. When the first is busy or down (it answers <code>429</code> or <code>5xx</code>, or cannot be reached) before it had your request to bill, the next one answers it, under the same reservation; a provider that had your request, or whose stream has begun, is never switched, so a call is billed by one provider at most. Each usage row names the provider that served it.</p>
${h3('response-cache', 'Response cache')}
<p>A key can keep its answers for a while: set <strong>Response cache</strong> on the key (in seconds, up to a day; off by default). A non-streamed request that is the same as one the key was answered within that time for the same end user (the token's <code>sub</code>, the end user your server names, or else the visitor's address), every field alike (in any order), is then answered from the cache: no provider sees it, it is <strong>charged nothing</strong>, and its usage row says <em>Cache hit</em>. The answer is the cached one, with a new <code>id</code>. Streamed requests are never cached, and a key's cache serves only that key and that end user: never another end user's, key's or account's requests; an account that owes money gets no cached answers. Every answer of a key with a cache carries <code>x_meterway.cacheHit</code> (<code>true</code> or <code>false</code>). Rate limits and blocks apply to cached answers like any other.</p>
<div class="callout info"><strong>See every call.</strong><p>Usage appears in the console's <a href="${usagePage}">Chat completions</a> page, with estimated and actual tokens and costs for each call.</p></div>`;

  // Types and codes as the gateway answers them (gateway/openai-error.ts).
  const errorRows: [number, string, string, string][] = [
    [400, 'invalid_request_error', 'invalid_request', 'The request body is invalid: check <code>param</code> and <code>message</code>.'],
    [
      400,
      'invalid_request_error',
      'invalid_json',
      'The request body is empty or not valid JSON. Send one JSON object, with <code>Content-Type: application/json</code>.',
    ],
    [400, 'invalid_request_error', 'model_not_found', 'Unknown model. <code>GET /v1/models</code> lists the models you can call.'],
    [401, 'invalid_request_error', 'invalid_api_key', 'The key is missing, unknown or deleted.'],
    [
      401,
      'invalid_request_error',
      'end_user_token_required',
      'The key requires an end-user token and the request has no <code>Meterway-User-Token</code> header. See <a href="#end-user-tokens">End-user tokens</a>.',
    ],
    [
      401,
      'invalid_request_error',
      'invalid_end_user_token',
      "The end-user token was refused; the message says why (expired, wrong issuer, wrong audience, bad signature, unknown signing key, unsupported algorithm). Send the signed-in user's current token.",
    ],
    [402, 'insufficient_quota', 'insufficient_quota', `Your prepaid credit is exhausted. <a href="${dashboard}">Top up in the console</a>.`],
    [403, 'permission_error', 'origin_not_allowed', "The <code>Origin</code> header is missing or is not one of the key's allowed origins."],
    [
      403,
      'permission_error',
      'secret_key_in_browser',
      'A secret key came with an <code>Origin</code> header, from a web page. Roll or delete the key; see <a href="#secret-keys">Secret keys</a>.',
    ],
    [403, 'permission_error', 'admin_key_not_allowed', 'A secret key with the admin scope works on the <a href="#developer-api">developer API</a> only.'],
    [403, 'permission_error', 'model_not_allowed', 'The key does not allow this model. <code>GET /v1/models</code> lists the ones it does.'],
    [403, 'permission_error', 'client_blocked', "The key's owner has blocked calls from your address."],
    [403, 'permission_error', 'end_user_blocked', "The key's owner has blocked this end user."],
    [
      413,
      'invalid_request_error',
      'request_too_large',
      'The request body is larger than the endpoint takes (1 MiB for chat completions); the message says the limit.',
    ],
    [415, 'invalid_request_error', 'unsupported_media_type', 'The request body is not JSON: send it with <code>Content-Type: application/json</code>.'],
    [
      429,
      'insufficient_quota',
      'budget_exceeded',
      "The key's monthly budget is spent. It resets on the 1st of the month, UTC; raise it in the console if needed.",
    ],
    [
      429,
      'insufficient_quota',
      'client_allowance_exceeded',
      "Your address has spent the key's daily allowance per visitor. It resets at midnight UTC (<code>Retry-After</code>).",
    ],
    [
      429,
      'insufficient_quota',
      'end_user_allowance_exceeded',
      "The end user has spent the key's daily or monthly allowance per end user. A daily one resets at midnight UTC, a monthly one on the 1st, UTC (<code>Retry-After</code>).",
    ],
    [
      429,
      'requests',
      'rate_limit_exceeded',
      "Too many requests for this key, or from your address or end user for this key. Wait for the <code>Retry-After</code> header's seconds, then retry.",
    ],
    [
      502,
      'api_error',
      'upstream_error',
      'The model provider failed. Nothing is charged if it refused the call; if it failed after it had it, the reservation is charged (the message says which).',
    ],
    [504, 'api_error', 'upstream_timeout', 'The model provider did not answer in time. It had your request and may bill it, so the reservation is charged.'],
  ];
  const errors = `
${h2('errors')}
<p>Errors use OpenAI's error shape and the matching HTTP status. Error responses carry CORS headers, so your app can read them. Branch on <code>error.code</code>; the message is for humans and may change. The key, the <code>Origin</code>, blocks and rate limits are checked before the request body is read, so a call they refuse gets that error (401, 403 or 429) whatever its body holds.</p>
${codeBlock(`{\n  "error": {\n    "message": "The model 'gpt-9' does not exist or is not priced on this gateway.",\n    "type": "invalid_request_error",\n    "code": "model_not_found",\n    "param": "model"\n  }\n}`, 'json', 'Example: 400 response body')}
<div class="table-wrap"><table>
  <thead><tr><th>Status</th><th>Type</th><th>Code</th><th>Meaning and what to do</th></tr></thead>
  <tbody>${errorRows.map(([status, type, code, meaning]) => `<tr><td><span class="status s${String(status)[0]}">${status}</span></td><td><code>${type}</code></td><td><code>${code}</code></td><td>${meaning}</td></tr>`).join('')}</tbody>
</table></div>`;

  const limits = `
${h2('limits')}
<div class="table-wrap"><table>
  <thead><tr><th>Limit</th><th>Value</th></tr></thead>
  <tbody>
    <tr><td>Request body</td><td>At most 1 MiB (1,048,576 bytes), as JSON; beyond it: <code>413 request_too_large</code>.</td></tr>
    <tr><td><code>max_tokens</code>, <code>max_completion_tokens</code></td><td>Lowered to what the key's budget, the visitor's daily allowance and your credit can pay, and to the key's and the model's output limit (see <a href="#metering">Metering</a>).</td></tr>
    <tr><td><code>n</code></td><td>1 to 128 choices; each is reserved and billed its own output.</td></tr>
    <tr><td>Requests per minute, per key</td><td>600 by default; the operator sets it with <code>GATEWAY_RATE_LIMIT_PER_MINUTE</code>. Beyond it: <code>429 rate_limit_exceeded</code> with <code>Retry-After</code>.</td></tr>
    <tr><td>Unknown keys, per client address</td><td>At most 60 keys that match no key in a minute, counted by each gateway instance; beyond it, any key the instance does not know gets <code>429 rate_limit_exceeded</code> with <code>Retry-After</code> until the minute is over, while keys it knows keep working.</td></tr>
    <tr><td>Monthly budget, per key</td><td>Set in the console; resets on the 1st of the month, UTC.</td></tr>
    <tr><td>Per visitor address, per key</td><td>Requests per minute and spend per day, set in the console (30 and $1.00 for a new key); see <a href="#copied-key">Limits for a copied key</a>.</td></tr>
    <tr><td>Per end user, per key</td><td>Requests per minute and spend per day and per month, set in the console (no cap unless you set one); an end user is a token's <code>sub</code>, or the client address on a key without end-user tokens.</td></tr>
  </tbody>
</table></div>`;

  const modelRows = models
    .map(
      (model) =>
        `<tr><td><code>${e(model.id)}</code>${model.id === demoModelId ? '<span class="badge">demo</span>' : ''}</td><td class="num">${usd(model.inputPerMillion)}</td><td class="num">${model.cachedInputPerMillion === null ? '—' : usd(model.cachedInputPerMillion)}</td><td class="num">${usd(model.outputPerMillion)}</td></tr>`,
    )
    .join('');
  const example = models.find((model) => model.id === demoModelId) ?? models[0];
  const listExample = example
    ? codeBlock(
        JSON.stringify(
          {
            object: 'list',
            data: [
              {
                id: example.id,
                object: 'model',
                created: 0,
                owned_by: 'meterway',
                x_meterway: {
                  inputPrice: example.inputPerMillion,
                  cachedInputPrice: example.cachedInputPerMillion,
                  outputPrice: example.outputPerMillion,
                  maxOutputTokens: example.maxOutputTokens,
                  priceListVersion: priceListVersion ?? '…',
                },
              },
            ],
          },
          null,
          2,
        ),
        'json',
        'Example: GET /v1/models response body',
      )
    : '';
  const modelsSection = `
${h2('models')}
<p>Prices in USD per 1 million tokens, as you are charged${priceListVersion ? ` (price list of ${e(priceListVersion)})` : ''}; cached input is input the provider reports as cached, charged at the input price where the model has no cached-input price (—). A price change applies to new calls only: each call keeps the price list version it was priced with.</p>
${
  models.length
    ? `<div class="table-wrap"><table><thead><tr><th>Model</th><th class="num">Input / 1M tokens</th><th class="num">Cached input / 1M tokens</th><th class="num">Output / 1M tokens</th></tr></thead><tbody>${modelRows}</tbody></table></div>`
    : '<p class="muted">No models are priced yet.</p>'
}
<p><code>${demoModelId}</code> is the built-in offline demo model: it answers with deterministic text, so you can try everything out without a model provider.</p>
<p><code>GET /v1/models</code> lists the models your key may call, in OpenAI's shape (so OpenAI's SDKs read it), each with its prices in an <code>x_meterway</code> object: <code>inputPrice</code>, <code>cachedInputPrice</code> (<code>null</code> when the model has none), <code>outputPrice</code> (USD per 1M tokens), <code>maxOutputTokens</code> and <code>priceListVersion</code>. Signed-in members see the same list on the console's <a href="${modelsPage}">Models</a> page.</p>
${listExample}`;

  const reference = `
${h2('reference')}
<p>The machine-readable OpenAPI description of the API is at <a href="${openapi}"><code>${openapi}</code></a>.</p>`;

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Docs · Meterway</title>
<meta name="description" content="Call the Meterway OpenAI-compatible API from a browser app with a publishable key.">
<style>${docsStyle}</style>
</head>
<body>
<header class="topbar"><div class="topbar-inner"><a class="brand" href="#top">${logo}Meterway</a><span class="section-name">Docs</span>
<nav><a href="${openapi}">OpenAPI</a><a href="${dashboard}">Console</a></nav></div></header>
<div class="layout" id="top">
${toc}
<main>
${overview}${authentication}${quickstartFetch}${quickstartSdk}${endUserTokens}${secretKeysSection({ base, dashboard })}${developerApiSection({ apiUrl, dashboard })}${webhooksSection({ webhooksPage })}${metering}${errors}${limits}${modelsSection}${reference}
<footer>Meterway API · <a href="${dashboard}">Console</a> · <a href="${openapi}">OpenAPI</a></footer>
</main>
</div>
<script>${docsScript}</script>
</body>
</html>`;
}
