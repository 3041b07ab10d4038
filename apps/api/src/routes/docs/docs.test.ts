import { readFile } from 'node:fs/promises';
import { webhookEventTypes } from '@meterway/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docsRoutes } from './docs.js';

const models = [
  { id: 'meterway-demo', inputPerMillion: 0.1, cachedInputPerMillion: null, outputPerMillion: 0.4, maxOutputTokens: 4096 },
  { id: 'gpt-4o-mini', inputPerMillion: 0.15, cachedInputPerMillion: 0.075, outputPerMillion: 0.6, maxOutputTokens: 16384 },
  { id: 'big-model', inputPerMillion: 2.5, cachedInputPerMillion: 1.25, outputPerMillion: 10, maxOutputTokens: 16384 },
  { id: 'evil<script>alert(1)</script>', inputPerMillion: 1, cachedInputPerMillion: null, outputPerMillion: 2, maxOutputTokens: 9 },
];

let app: FastifyInstance;
let html: string;
/** The page as read: tags stripped (code blocks are highlighted into spans), entities decoded. */
let text: string;
let headers: Record<string, unknown>;

beforeAll(async () => {
  app = Fastify();
  docsRoutes(app, { apiUrl: 'https://api.example.test', consoleUrl: 'https://console.example.test', models: () => models, priceListVersion: '2026-11-25' });
  const response = await app.inject({ method: 'GET', url: '/docs' });
  expect(response.statusCode).toBe(200);
  html = response.body;
  const entities: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };
  text = html.replace(/<[^>]+>/g, '').replace(/&(lt|gt|quot|#39|amp);/g, (entity) => entities[entity] ?? entity);
  headers = response.headers;
});
afterAll(() => app.close());

describe('GET /docs', () => {
  it('answers a cacheable HTML page under a strict CSP', () => {
    expect(headers['content-type']).toBe('text/html; charset=utf-8');
    expect(headers['cache-control']).toBe('public, max-age=300');
    const csp = String(headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'/);
    expect(csp).not.toContain('unsafe-inline');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/\son[a-z]+=/i); // no inline event handlers
    expect(html).not.toMatch(/<(link|img|iframe)\b|\ssrc=/i); // nothing loaded from elsewhere
  });

  it('states the base URL, the Bearer example, the console and the OpenAPI reference', () => {
    expect(text).toContain('Base URLhttps://api.example.test/v1');
    expect(text).toContain("baseURL: 'https://api.example.test/v1'");
    expect(text).toContain('Authorization: Bearer pk_live_…');
    expect(html).toContain('href="https://console.example.test/dashboard"');
    expect(html).toContain('href="https://api.example.test/openapi.json"');
    expect(text).toContain('dangerouslyAllowBrowser: true');
    expect(text).toContain('for await (const chunk of stream)');
    expect(text).toContain('GATEWAY_RATE_LIMIT_PER_MINUTE');
  });

  it('explains end-user tokens: the header, the key settings, the checks and the fetch and SDK examples', () => {
    expect(html).toContain('<h2 id="end-user-tokens">End-user tokens');
    expect(html).toContain('<li><a href="#end-user-tokens">End-user tokens</a></li>');
    expect(text).toContain('Meterway-User-Token: eyJ');
    expect(text).toContain('endUserTokens: { issuer, audience, jwksUrl }');
    expect(text).toContain("'Meterway-User-Token': token,");
    expect(text).toContain("defaultHeaders: { 'Meterway-User-Token': await getUserToken() }");
    expect(text).toMatch(/Tokens expire, so do not keep one client/);
    expect(text).toContain('RS256 or ES256 only. none and HS256 are refused.');
    expect(text).toContain('cached for 10 minutes');
    expect(text).toContain('at most once every 30 seconds');
    expect(text).toContain('clocks may differ by 30 seconds');
    expect(text).toContain('sub, at most 255 characters, is the end user');
    expect(text).toMatch(/http only for localhost/);
  });

  it('gives the issuer, audience and JWKS URL and the token call for each sign-in provider', () => {
    const providerRow = (provider: string) => html.match(new RegExp(`<tr><td><strong>${provider}</strong>.*?</tr>`))?.[0] ?? '';
    expect(providerRow('Firebase Auth')).toContain('https://securetoken.google.com/&lt;project-id&gt;');
    expect(providerRow('Firebase Auth')).toContain('https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com');
    expect(providerRow('Auth0')).toContain('https://&lt;tenant&gt;.auth0.com/</code>');
    expect(providerRow('Auth0')).toContain('https://&lt;tenant&gt;.auth0.com/.well-known/jwks.json');
    expect(providerRow('Supabase')).toContain('https://&lt;project&gt;.supabase.co/auth/v1</code></td><td><code>authenticated</code>');
    expect(providerRow('Supabase')).toContain('https://&lt;project&gt;.supabase.co/auth/v1/.well-known/jwks.json');
    expect(providerRow('Clerk')).toContain('Frontend API URL');
    expect(providerRow('Clerk')).toContain('&lt;issuer&gt;/.well-known/jwks.json');
    expect(text).toContain('const getUserToken = () => auth.currentUser.getIdToken();');
    expect(text).toContain('const getUserToken = () => getAccessTokenSilently();');
    expect(text).toContain('(await supabase.auth.getSession()).data.session.access_token');
    expect(text).toContain("getToken({ template: '<template-name>' })");
    expect(text).toContain('legacy JWT secret (HS256) are refused');
  });

  it('says what a copied key can do with and without end-user tokens, and the caps per end user', () => {
    expect(text).toContain('A copied key is then useless without one');
    expect(text).toContain('Without them, the caps per visitor address below are the protection.');
    for (const setting of ['Requests per minute per end user', 'Spend per day per end user', 'Spend per month per end user']) expect(text).toContain(setting);
    expect(text).toContain('treats each client address as an anonymous end user');
    expect(text).toContain("the last 24 hours' top client addresses and end users by calls and by spend");
  });

  it('explains secret keys: servers only, the two scopes, the openai SDK on a server, never in a page', () => {
    expect(html).toContain('<h2 id="secret-keys">Secret keys (servers)');
    expect(html).toContain('<li><a href="#secret-keys">Secret keys (servers)</a></li>');
    expect(text).toContain("const client = new OpenAI({ apiKey: 'sk_live_…', baseURL: 'https://api.example.test/v1' });");
    expect(text).toContain('Never in a web page.');
    expect(text).toContain('403 secret_key_in_browser');
    expect(text).toMatch(/Gateway: calls models .*Admin: works on the developer API/s);
    expect(text).toContain('Secret keys → New secret key');
  });

  it('documents the developer API: how to get an admin key, and a curl example for every route', () => {
    expect(html).toContain('<h2 id="developer-api">Developer API');
    expect(text).toContain('Base URLhttps://api.example.test/v1/organization');
    expect(text).toMatch(/choose the scope Admin/);
    const auth = '-H "Authorization: Bearer $METERWAY_ADMIN_KEY"';
    const api = 'https://api.example.test/v1/organization';
    for (const example of [
      `curl ${api}/balance ${auth}`,
      `curl "${api}/credit-history?limit=20" ${auth}`,
      `curl "${api}/usage?secretKeyId=`,
      `curl "${api}/usage?publishableKeyId=`,
      `curl "${api}/usage/daily?days=7" ${auth}`,
      `curl -X POST ${api}/publishable-keys ${auth}`,
      `curl -X PUT ${api}/publishable-keys/`,
      `curl -X DELETE ${api}/publishable-keys/`,
    ])
      expect(text).toContain(example);
    for (const code of ['gateway_key_not_allowed', 'secret_key_in_browser', 'invalid_api_key', 'rate_limit_exceeded']) expect(text).toContain(code);
    expect(text).toContain('secret key sk_live_AbCd… (its name)');
    expect(text).toContain('remainingSpendAmount');
    expect(text).toContain('promotionalCreditAmount');
  });

  it('documents webhooks: every event, the signature with the very snippet the webhook tests run, and the retries', async () => {
    const snippet = await readFile(new URL('../../../examples/verify-webhook-signature.mjs', import.meta.url), 'utf8');
    for (const type of webhookEventTypes) expect(text).toContain(type);
    expect(text).toContain(snippet.trimEnd());
    expect(text).toContain('Meterway-Signature: t=<unix seconds>,v1=');
    expect(text).toContain('until 24 hours after the event');
    expect(html).toContain('href="https://console.example.test/webhooks"');
    expect(text).toContain('Meterway-End-User');
  });

  it('lists each model with its prices per million tokens', () => {
    const row = (id: string) => html.match(new RegExp(`<tr><td><code>${id}</code>.*?</tr>`))?.[0] ?? '';
    expect(row('meterway-demo')).toMatch(/\$0\.10<\/td><td class="num">—<\/td>.*\$0\.40<\/td>/);
    expect(row('gpt-4o-mini')).toMatch(/\$0\.15<\/td>.*\$0\.075<\/td>.*\$0\.60<\/td>/);
    expect(row('big-model')).toMatch(/\$2\.50<\/td>.*\$1\.25<\/td>.*\$10\.00<\/td>/);
    expect(text).toContain('price list of 2026-11-25');
    expect(text).toContain('A price change applies to new calls only');
  });

  it('documents the prices on GET /v1/models in x_meterway, with an example, and the console Models page', () => {
    expect(html).toContain('<code>x_meterway</code>');
    for (const field of ['inputPrice', 'cachedInputPrice', 'outputPrice', 'maxOutputTokens', 'priceListVersion']) expect(text).toContain(field);
    const example = text.slice(text.indexOf('Example: GET /v1/models response body'));
    const body = example.slice(example.indexOf('{'), example.lastIndexOf('}') + 1);
    expect(JSON.parse(body.slice(0, body.indexOf('\n}') + 2))).toEqual({
      object: 'list',
      data: [
        {
          id: 'meterway-demo',
          object: 'model',
          created: 0,
          owned_by: 'meterway',
          x_meterway: { inputPrice: 0.1, cachedInputPrice: null, outputPrice: 0.4, maxOutputTokens: 4096, priceListVersion: '2026-11-25' },
        },
      ],
    });
    expect(html).toContain('href="https://console.example.test/models"');
  });

  it('documents every error with its status, type and code', () => {
    const errors: [number, string, string][] = [
      [400, 'invalid_request_error', 'invalid_request'],
      [400, 'invalid_request_error', 'invalid_json'],
      [400, 'invalid_request_error', 'model_not_found'],
      [401, 'invalid_request_error', 'invalid_api_key'],
      [401, 'invalid_request_error', 'end_user_token_required'],
      [401, 'invalid_request_error', 'invalid_end_user_token'],
      [402, 'insufficient_quota', 'insufficient_quota'],
      [403, 'permission_error', 'origin_not_allowed'],
      [403, 'permission_error', 'secret_key_in_browser'],
      [403, 'permission_error', 'admin_key_not_allowed'],
      [403, 'permission_error', 'model_not_allowed'],
      [403, 'permission_error', 'client_blocked'],
      [403, 'permission_error', 'end_user_blocked'],
      [413, 'invalid_request_error', 'request_too_large'],
      [415, 'invalid_request_error', 'unsupported_media_type'],
      [429, 'insufficient_quota', 'budget_exceeded'],
      [429, 'insufficient_quota', 'client_allowance_exceeded'],
      [429, 'insufficient_quota', 'end_user_allowance_exceeded'],
      [429, 'requests', 'rate_limit_exceeded'],
      [502, 'api_error', 'upstream_error'],
      [504, 'api_error', 'upstream_timeout'],
    ];
    for (const [status, type, code] of errors) expect(html).toContain(`>${status}</span></td><td><code>${type}</code></td><td><code>${code}</code></td>`);
  });

  it('escapes interpolated values', () => {
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('evil&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html.match(/<script>/g)).toHaveLength(1); // only the page's own copy-button script
  });

  it('escapes the urls too, in text, code and attributes', async () => {
    const other = Fastify();
    docsRoutes(other, { apiUrl: 'https://api.example.test/"><script>x</script>', consoleUrl: "https://c.test/'onload='x", models: () => [] });
    const body = (await other.inject({ method: 'GET', url: '/docs' })).body;
    await other.close();
    expect(body).not.toContain('"><script>x');
    expect(body).not.toContain("'onload='");
    expect(body).toContain('&quot;&gt;&lt;script&gt;x');
    expect(body).toContain('No models are priced yet.');
  });
});
