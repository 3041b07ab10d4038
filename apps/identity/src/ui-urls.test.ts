import { describe, expect, it } from 'vitest';
import { loadIdentityConfig } from './env.js';
import { setupTestApp } from './testing/setup-test-app.js';

const app = 'http://localhost:5173';
const t = setupTestApp({
  CONSOLE_URL: 'http://localhost:3000',
  IDENTITY_URL: 'http://localhost:4000',
  IDENTITY_LOGIN_UI_URL: `${app}/login`,
  IDENTITY_REGISTRATION_UI_URL: `${app}/registration`,
  IDENTITY_DEFAULT_RETURN_URL: `${app}/`,
});

describe('configurable UI URLs (Kratos ui_url)', () => {
  it('keeps the console pages and the hosted second factor and settings by default', () => {
    expect(loadIdentityConfig({}).ui).toEqual({
      login: 'http://localhost:3000/login',
      secondFactor: 'http://localhost:4000/ui/login',
      registration: 'http://localhost:3000/signup',
      verification: 'http://localhost:3000/verify-email',
      recovery: 'http://localhost:3000/recover-password',
      settings: 'http://localhost:4000/ui/settings',
      afterLogin: 'http://localhost:3000/dashboard',
      afterLogout: 'http://localhost:3000/login',
    });
  });

  it('sends every login flow, the second factor included, to a configured login UI', () => {
    const { ui } = loadIdentityConfig({ IDENTITY_LOGIN_UI_URL: `${app}/login`, IDENTITY_SETTINGS_UI_URL: `${app}/settings`, IDENTITY_DEFAULT_RETURN_URL: app });
    expect(ui).toMatchObject({ login: `${app}/login`, secondFactor: `${app}/login`, settings: `${app}/settings`, afterLogin: app, afterLogout: app });
  });

  it('stops boot on a value that is not an http(s) URL, naming the variable', () => {
    expect(() => loadIdentityConfig({ IDENTITY_SETTINGS_UI_URL: 'javascript:alert(1)' })).toThrow(
      /IDENTITY_SETTINGS_UI_URL: must be an http:\/\/ or https:\/\/ URL/,
    );
    expect(() => loadIdentityConfig({ IDENTITY_DEFAULT_RETURN_URL: 'elsewhere' })).toThrow(/IDENTITY_DEFAULT_RETURN_URL/);
  });

  it('redirects a browser to the configured login UI and accepts return_to on its origin', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/self-service/login/browser?return_to=${encodeURIComponent(`${app}/home`)}`,
      headers: { accept: 'text/html' },
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toMatch(new RegExp(`^${app}/login\\?flow=`));
    const foreign = await t.app.inject({
      method: 'GET',
      url: `/self-service/login/browser?return_to=${encodeURIComponent('http://evil.example/')}`,
      headers: { accept: 'application/json' },
    });
    expect(foreign.statusCode).toBe(400);
  });

  it('allows credentialed CORS from the configured UI origin, and not from others', async () => {
    const preflight = (origin: string) =>
      t.app.inject({ method: 'OPTIONS', url: '/self-service/login/flows', headers: { origin, 'access-control-request-method': 'GET' } });
    const allowed = await preflight(app);
    expect(allowed.headers['access-control-allow-origin']).toBe(app);
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    expect((await preflight('http://evil.example')).headers['access-control-allow-origin']).toBeUndefined();
  });
});
