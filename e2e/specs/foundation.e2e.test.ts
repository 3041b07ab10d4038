import { describe, expect, inject, it } from 'vitest';
import { csrfOf, identitySession } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';
import { runStackToExit, startStack } from '../support/stack.js';

const stack = inject('stack');
const chromium = useBrowser();

describe('the stack as npm start runs it', () => {
  it('shows the login form in the browser', async () => {
    const page = await chromium.browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${stack.consoleUrl}/login`);
    await page.getByRole('textbox', { name: 'Email' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Password' }).isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Sign up' }).getAttribute('href')).toBe('/signup');
    expect(await page.getByRole('button', { name: 'Login' }).isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('answers the api and identity health checks', async () => {
    for (const url of [stack.apiUrl, stack.identityUrl]) {
      const response = await fetch(`${url}/healthz`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
    }
  });

  it('runs a second stack beside the first, and keeps its data in DATA_DIR across a restart', async () => {
    const email = `restart-${Date.now()}@example.com`;
    const password = 'a long and unusual passphrase 42';
    const second = await startStack();
    try {
      expect(second.apiUrl).not.toBe(stack.apiUrl);
      expect((await fetch(`${second.apiUrl}/healthz`)).status).toBe(200);
      expect((await fetch(`${stack.apiUrl}/healthz`)).status).toBe(200);
      // The supported runtime (Node 24), whatever Node is first on the machine's PATH.
      for (const service of ['identity', 'api', 'console']) {
        expect(second.output()).toMatch(new RegExp(`\\[${service}\\s*\\] .*Server listening at \\S+ on Node v24\\.`));
      }
      await identitySession(second.identityUrl).signUp(email, { password, verify: false });
    } finally {
      expect(await second.stop()).toBe(0);
    }
    const again = await startStack({ dataDir: second.dataDir });
    try {
      expect(again.output()).toContain(`data in ${second.dataDir}`);
      expect(await logIn(again.identityUrl, email, password)).toBe(200);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  });

  it('refuses to boot with an invalid variable, naming it', async () => {
    const { code, output } = await runStackToExit({ API_PORT: 'abc' });
    expect(code).not.toBe(0);
    expect(output).toContain('API_PORT: must be a port number between 1 and 65535 (got "abc")');
  });

  it('refuses to boot in production with the sandbox for payments, naming the Stripe variables', async () => {
    const { code, output } = await runStackToExit({ NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:2525' });
    expect(code).not.toBe(0);
    expect(output).toContain(
      'STRIPE_SECRET_KEY: is required in production, with STRIPE_WEBHOOK_SECRET and STRIPE_PUBLISHABLE_KEY: without them payments run in the sandbox, which credits any test card (set SANDBOX_PAYMENTS=allow to run it anyway)',
    );
  });

  it('runs the sandbox in production when allowed, and says so from the login screen on', async () => {
    const production = await startStack({ env: { NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:2525', SANDBOX_PAYMENTS: 'allow' } });
    const page = await chromium.browser.newPage();
    try {
      await page.goto(`${production.consoleUrl}/login`);
      await page.getByRole('button', { name: 'Login' }).waitFor();
      expect(await page.getByRole('note', { name: 'Test mode' }).textContent()).toBe(
        'Test mode: payments run in the sandbox, which accepts test cards and charges no real money.',
      );
    } finally {
      await page.close();
      expect(await production.stop()).toBe(0);
    }
  });
});

/** Logs in on that stack's identity as the console's SDK does; answers the status. */
async function logIn(identityUrl: string, email: string, password: string): Promise<number> {
  const person = identitySession(identityUrl);
  const flow = await person.call('GET', '/self-service/login/browser');
  const submitted = await person.call('POST', `/self-service/login?flow=${flow.body.id}`, {
    method: 'password',
    identifier: email,
    password,
    csrf_token: csrfOf(flow.body),
  });
  return submitted.status;
}
