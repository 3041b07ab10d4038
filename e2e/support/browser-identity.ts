import type { APIRequestContext, BrowserContext, Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { authenticatorApp } from './authenticator.js';

type IdentityResponse = { status: number; body: any };
type IdentityCall = (method: 'GET' | 'POST', path: string, data?: unknown) => Promise<IdentityResponse>;

type SignUpOptions = {
  password?: string;
  verify?: boolean;
  /** A stack of the spec's own; the global stack's identity by default. */
  identityUrl?: string;
  /** Where the verification code is read: identity's dev outbox by default (a stack with SMTP_URL mails it instead). */
  verificationCode?: (email: string) => Promise<string>;
};

const json = { accept: 'application/json' };

const defaultPassword = 'a long and unusual passphrase 42';

/** The CSRF token a self-service flow expects back when it is submitted. */
export const csrfOf = (flow: any): string => flow.ui.nodes.find((node: any) => node.attributes.name === 'csrf_token').attributes.value;

/** The identity API called from the browser's own cookie jar, as the console's SDK calls it. */
export function callIdentity(request: APIRequestContext, method: 'GET' | 'POST', path: string, data?: unknown): Promise<IdentityResponse> {
  return callIdentityAt(inject('stack').identityUrl, request, method, path, data);
}

async function callIdentityAt(
  identityUrl: string,
  request: APIRequestContext,
  method: 'GET' | 'POST',
  path: string,
  data?: unknown,
): Promise<IdentityResponse> {
  const response = await request.fetch(`${identityUrl}${path}`, { method, headers: json, ...(data ? { data } : {}) });
  return { status: response.status(), body: response.status() === 204 ? null : await response.json() };
}

/**
 * Signs up in the context's cookie jar (identity starts a session there) and, unless told not to,
 * verifies the address with the code from the dev outbox.
 */
export function signUp(cookieJar: BrowserContext | APIRequestContext, email: string, options: SignUpOptions = {}) {
  const request = 'request' in cookieJar ? cookieJar.request : cookieJar;
  const identityUrl = options.identityUrl ?? inject('stack').identityUrl;
  return signUpThrough((method, path, data) => callIdentityAt(identityUrl, request, method, path, data), email, options);
}

/**
 * A person's browser session against an identity service over plain HTTP, with a cookie jar of
 * its own: for callers that need its raw cookie header, or that call the api with an origin.
 */
export function identitySession(identityUrl: string) {
  const cookies = new Map<string, string>();
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  async function call(method: string, url: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<IdentityResponse> {
    const response = await fetch(url.startsWith('http') ? url : `${identityUrl}${url}`, {
      method,
      headers: { ...json, cookie: cookieHeader(), ...(body ? { 'content-type': 'application/json' } : {}), ...extraHeaders },
      ...(body ? { body: JSON.stringify(body) } : {}),
      redirect: 'manual',
    });
    for (const header of response.headers.getSetCookie()) {
      const [pair = ''] = header.split(';');
      const [name = '', ...value] = pair.split('=');
      if (/max-age=(0|-)/i.test(header)) cookies.delete(name);
      else cookies.set(name, value.join('='));
    }
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }
  return { call, signUp: (email: string, options: SignUpOptions = {}) => signUpThrough(call, email, options), cookieHeader };
}

async function signUpThrough(call: IdentityCall, email: string, { password = defaultPassword, verify = true, verificationCode }: SignUpOptions) {
  const registration = await call('GET', '/self-service/registration/browser');
  const registered = await call('POST', `/self-service/registration?flow=${registration.body.id}`, {
    method: 'password',
    traits: { email },
    password,
    csrf_token: csrfOf(registration.body),
  });
  expect(registered.status, `sign-up of ${email}: ${JSON.stringify(registered.body)}`).toBe(200);
  if (verify) {
    const flowId = registered.body.continue_with.find((item: any) => item.action === 'show_verification_ui').flow.id;
    const code = verificationCode
      ? await verificationCode(email)
      : (await call('GET', `/dev/outbox?to=${encodeURIComponent(email)}`)).body.messages.at(-1).code;
    const verified = await call('POST', `/self-service/verification?flow=${flowId}`, { method: 'code', code });
    expect(verified.body.state, `verification of ${email}`).toBe('passed_challenge');
  }
  return { email, password };
}

/** Enrols TOTP on identity's hosted settings page, where `page` already is; answers the authenticator app, whose first code enrolled it. */
export async function enrolTotpOnSettingsPage(page: Page): Promise<ReturnType<typeof authenticatorApp>> {
  const totpCard = page.getByTestId('ory/screen/settings/group/totp');
  const secret = (await totpCard.textContent())?.match(/[A-Z2-7]{32}/)?.[0] ?? '';
  expect(secret).toHaveLength(32);
  const app = authenticatorApp(secret);
  await totpCard.getByLabel('Verify code').fill(await app.code());
  await totpCard.getByRole('button', { name: 'Save' }).click();
  await totpCard.getByRole('button', { name: 'Unlink TOTP Authenticator App' }).waitFor();
  return app;
}
