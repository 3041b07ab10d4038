import { describe, expect, it } from 'vitest';
import { setupIdentityServer } from '../testing/identity-server.js';
import { setupTestApp } from '../testing/setup-test-app.js';

const t = setupIdentityServer();

describe('identity responses', () => {
  it('carry nosniff on JSON, and no HSTS while served over plain http', async () => {
    for (const path of ['/healthz', '/self-service/login/browser', '/sessions/whoami']) {
      const response = await fetch(`${t.baseUrl}${path}`, { headers: { accept: 'application/json' } });
      expect(response.headers.get('content-type'), path).toMatch(/json/);
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('strict-transport-security'), path).toBeNull();
    }
  });
});

describe('identity served over https', () => {
  const https = setupTestApp({ IDENTITY_URL: 'https://auth.example.com', CONSOLE_URL: 'https://console.example.com' });

  it('tells browsers to come back over https only (HSTS), on every response', async () => {
    for (const url of ['/healthz', '/health/alive', '/self-service/login/browser']) {
      const response = await https.app.inject({ method: 'GET', url, headers: { accept: 'application/json' } });
      expect(response.headers['strict-transport-security'], url).toBe('max-age=31536000; includeSubDomains');
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });
});
