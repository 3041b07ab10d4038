import { describe, expect, it } from 'vitest';
import { setupTestApp } from '../testing/setup-test-app.js';

const t = setupTestApp({ IDENTITY_URL: 'https://id.example.com', CONSOLE_URL: 'https://console.example.com', COOKIE_DOMAIN: 'example.com' });

describe('cookies on an https deployment', () => {
  it('issues the CSRF cookie HttpOnly, Secure, SameSite=Lax, on the configured domain', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/self-service/login/browser', headers: { accept: 'application/json' } });
    expect(response.statusCode).toBe(200);
    const cookie = String(response.headers['set-cookie']);
    expect(cookie).toMatch(/^csrf_token_[0-9a-f]{64}=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Domain=example\.com/);
  });

  it('answers CORS preflights for the console origin only, with credentials', async () => {
    const allowed = await t.app.inject({
      method: 'OPTIONS',
      url: '/sessions/whoami',
      headers: { origin: 'https://console.example.com', 'access-control-request-method': 'GET' },
    });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://console.example.com');
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    const foreign = await t.app.inject({
      method: 'OPTIONS',
      url: '/sessions/whoami',
      headers: { origin: 'https://evil.example.net', 'access-control-request-method': 'GET' },
    });
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a return_to outside the allow-list', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/self-service/login/browser?return_to=${encodeURIComponent('https://evil.example.net/phish')}`,
      headers: { accept: 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      id: 'self_service_flow_return_to_forbidden',
      reason: 'Requested return_to URL "https://evil.example.net/phish" is not allowed.',
    });
  });
});
