import { describe, expect, it } from 'vitest';
import { setupTestApp } from '../../testing/setup-test-app.js';

// The sandbox allowed in production, as an operator would run it: every console page must say so.
const production = setupTestApp({ NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:2525', SANDBOX_PAYMENTS: 'allow' });
const development = setupTestApp();

describe('GET /bff/config', () => {
  it('tells the console to show test mode everywhere when the sandbox runs in production', async () => {
    const response = await production.app.inject({ method: 'GET', url: '/bff/config' });
    expect(response.json()).toEqual({ paymentProvider: 'sandbox', testModeEverywhere: true });
  });

  it('leaves it to the checkout in development', async () => {
    const response = await development.app.inject({ method: 'GET', url: '/bff/config' });
    expect(response.json()).toEqual({ paymentProvider: 'sandbox' });
  });
});
