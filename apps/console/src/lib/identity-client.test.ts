import loginChooseMethod from '@meterway/contracts/fixtures/identity/login-choose-method.json';
import loginCsrfViolation from '@meterway/contracts/fixtures/identity/login-csrf-violation.json';
import loginInvalidCredentials from '@meterway/contracts/fixtures/identity/login-invalid-credentials.json';
import loginSecondFactorRequired from '@meterway/contracts/fixtures/identity/login-second-factor-required.json';
import loginSuccess from '@meterway/contracts/fixtures/identity/login-success.json';
import recoveryCodeSent from '@meterway/contracts/fixtures/identity/recovery-code-sent.json';
import recoveryInvalidCode from '@meterway/contracts/fixtures/identity/recovery-invalid-code.json';
import recoveryLinkSent from '@meterway/contracts/fixtures/identity/recovery-link-sent.json';
import recoverySuccess from '@meterway/contracts/fixtures/identity/recovery-success.json';
import registrationInvalid from '@meterway/contracts/fixtures/identity/registration-invalid.json';
import registrationSessionAlreadyAvailable from '@meterway/contracts/fixtures/identity/registration-session-already-available.json';
import registrationSuccess from '@meterway/contracts/fixtures/identity/registration-success.json';
import settingsShowForm from '@meterway/contracts/fixtures/identity/settings-show-form.json';
import settingsSuccess from '@meterway/contracts/fixtures/identity/settings-success-totp-linked.json';
import settingsWeakPassword from '@meterway/contracts/fixtures/identity/settings-weak-password.json';
import verificationInvalidCode from '@meterway/contracts/fixtures/identity/verification-invalid-code.json';
import verificationPassedChallenge from '@meterway/contracts/fixtures/identity/verification-passed-challenge.json';
import verificationSentEmail from '@meterway/contracts/fixtures/identity/verification-sent-email.json';
import whoami from '@meterway/contracts/fixtures/identity/whoami.json';
import whoamiAal2Required from '@meterway/contracts/fixtures/identity/whoami-aal2-required.json';
import whoamiNoSession from '@meterway/contracts/fixtures/identity/whoami-no-session.json';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { sessionAlreadyAvailable } from '../testing/auth-handlers';
import { answer, identity, type IdentityFixture, withMessages, withNodeMessageText } from '../testing/identity-handlers';
import { server } from '../testing/msw-server';
import {
  changePassword,
  createSettingsUrl,
  isSessionAlreadyAvailable,
  login,
  logout,
  recoverByCode,
  recoverByLink,
  register,
  sendRecoveryCode,
  sendVerificationCode,
  sessionStatus,
  verify,
} from './identity-client';
import { logger } from './logger';

const pub = 'http://localhost:4000';
const flowId = '00000000-0000-4000-8000-000000000000';
const ada = { email: 'ada@example.com', password: 'correct horse battery' };

type Seen = { url: URL; accept: string | null; credentials: RequestCredentials; body: unknown };

/** Answers `method path` with `fixture`, recording what the console sent. */
function recording(method: 'get' | 'post', path: string, fixture: IdentityFixture) {
  const seen: Seen[] = [];
  server.use(
    http[method](`${pub}${path}`, async ({ request }) => {
      const text = await request.text();
      seen.push({
        url: new URL(request.url),
        accept: request.headers.get('accept'),
        credentials: request.credentials,
        body: text ? JSON.parse(text) : undefined,
      });
      return answer(fixture);
    }),
  );
  return seen;
}

const serverError: IdentityFixture = { status: 500, body: { error: { code: 500, status: 'Internal Server Error', message: 'boom' } } };

let warn: MockInstance<typeof logger.warn>;
beforeEach(() => {
  warn = vi.spyOn(logger, 'warn').mockImplementation(() => {});
});

describe('login', () => {
  it('creates a flow, then submits the password method with the flow id and csrf token', async () => {
    const created = recording('get', '/self-service/login/browser', loginChooseMethod);
    const submitted = recording('post', '/self-service/login', loginSuccess);

    await expect(login(ada)).resolves.toEqual({ type: 'Success' });

    expect(created[0]).toMatchObject({ accept: 'application/json', credentials: 'include' });
    expect(submitted[0]?.url.searchParams.get('flow')).toBe(flowId);
    expect(submitted[0]).toMatchObject({ accept: 'application/json', credentials: 'include' });
    expect(submitted[0]?.body).toEqual({ method: 'password', identifier: ada.email, password: ada.password, csrf_token: '<csrf_token>' });
  });

  it('answers Failure with the 4000006 text for wrong credentials', async () => {
    server.use(identity.createLoginFlow(), identity.submitLogin(loginInvalidCredentials));

    await expect(login(ada)).resolves.toEqual({
      type: 'Failure',
      messages: ['The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.'],
    });
  });

  it('answers SecondFactorRequired with the redirect of the 422', async () => {
    server.use(identity.createLoginFlow(), identity.submitLogin(loginSecondFactorRequired));

    await expect(login(ada)).resolves.toEqual({
      type: 'SecondFactorRequired',
      redirectTo: 'http://localhost:4000/self-service/login/browser?aal=aal2',
    });
  });

  it('answers EmailNotVerified for 403 session_verified_address_required (identity-protocol §7.4)', async () => {
    const unverified: IdentityFixture = {
      status: 403,
      body: {
        error: {
          id: 'session_verified_address_required',
          code: 400,
          status: 'Bad Request',
          reason: "Your account's email or phone address are not verified yet. Please check your email or phone inbox or re-request verification.",
          message: 'your email or phone address is not yet verified',
          details: {
            continue_with: [
              {
                action: 'show_verification_ui',
                flow: { id: 'verification-1', verifiable_address: 'ada@example.com', url: `${pub}/verify-email?flow=verification-1` },
              },
            ],
          },
        },
      },
    };
    server.use(identity.createLoginFlow(), identity.submitLogin(unverified));

    await expect(login({ ...ada, email: 'Ada@Example.com' })).resolves.toEqual({
      type: 'EmailNotVerified',
      email: 'ada@example.com',
      flowId: 'verification-1',
    });
  });

  it('answers EmailNotVerified for the legacy 400 flow carrying 4000010', async () => {
    const legacy = withMessages(loginInvalidCredentials, [
      { id: 4000010, text: 'Account not active yet. Did you forget to verify your email address?', type: 'error' },
    ]);
    server.use(identity.createLoginFlow(), identity.submitLogin(legacy));

    await expect(login(ada)).resolves.toEqual({ type: 'EmailNotVerified', email: ada.email });
  });

  it('answers Failure for a CSRF violation, and logs it', async () => {
    server.use(identity.createLoginFlow(), identity.submitLogin(loginCsrfViolation));

    const result = await login(ada);

    expect(result).toEqual({ type: 'Failure', messages: [loginCsrfViolation.body.error.reason] });
    expect(warn).toHaveBeenCalledWith('identity login failed', expect.objectContaining({ status: 403 }));
  });

  it('answers Failure when identity cannot be reached', async () => {
    server.use(
      identity.createLoginFlow(),
      http.post(`${pub}/self-service/login`, () => HttpResponse.error()),
    );

    await expect(login(ada)).resolves.toEqual({
      type: 'Failure',
      messages: ['The identity service could not be reached. Please try again.'],
    });
  });

  it("throws 'ory.createBrowserLoginFlow failed' for a browser with a session, and isSessionAlreadyAvailable says why", async () => {
    server.use(identity.createLoginFlow(sessionAlreadyAvailable('login')));
    const error: unknown = await login(ada).catch((thrown: unknown) => thrown);
    expect(error).toEqual(new Error('ory.createBrowserLoginFlow failed'));
    await expect(isSessionAlreadyAvailable(error)).resolves.toBe(true);
  });

  it("throws 'ory.createBrowserLoginFlow failed' when no flow can be created", async () => {
    server.use(identity.createLoginFlow(serverError));
    await expect(login(ada)).rejects.toThrow(new Error('ory.createBrowserLoginFlow failed'));
  });
});

describe('register', () => {
  it('answers Success with the verification flow id of continue_with', async () => {
    server.use(identity.createRegistrationFlow());
    const submitted = recording('post', '/self-service/registration', registrationSuccess);

    await expect(register(ada)).resolves.toEqual({ type: 'Success', flowId });
    expect(submitted[0]?.body).toEqual({ method: 'password', traits: { email: ada.email }, password: ada.password, csrf_token: '<csrf_token>' });
  });

  it('answers Failure with the node messages of an invalid registration', async () => {
    server.use(identity.createRegistrationFlow(), identity.submitRegistration(registrationInvalid));
    await expect(register(ada)).resolves.toEqual({ type: 'Failure', messages: ['Enter a valid email address'] });
  });

  it("answers Failure 'No verification flow found' when continue_with has no verification flow", async () => {
    const body = { ...registrationSuccess.body, continue_with: registrationSuccess.body.continue_with.slice(0, 1) };
    server.use(identity.createRegistrationFlow(), identity.submitRegistration({ status: 200, body }));

    await expect(register(ada)).resolves.toEqual({ type: 'Failure', messages: ['No verification flow found'] });
  });

  it("throws 'ory.createBrowserRegistrationFlow failed' when a session already exists, and isSessionAlreadyAvailable says why", async () => {
    server.use(identity.createRegistrationFlow(registrationSessionAlreadyAvailable));
    const error: unknown = await register(ada).catch((thrown: unknown) => thrown);
    expect(error).toEqual(new Error('ory.createBrowserRegistrationFlow failed'));
    await expect(isSessionAlreadyAvailable(error)).resolves.toBe(true);
  });

  it('isSessionAlreadyAvailable is false for any other failure to create a flow', async () => {
    server.use(identity.createRegistrationFlow(serverError));
    const error: unknown = await register(ada).catch((thrown: unknown) => thrown);
    expect(error).toEqual(new Error('ory.createBrowserRegistrationFlow failed'));
    await expect(isSessionAlreadyAvailable(error)).resolves.toBe(false);
  });
});

describe('verification', () => {
  it('sends a code and returns the flow id', async () => {
    server.use(identity.createVerificationFlow());
    const submitted = recording('post', '/self-service/verification', verificationSentEmail);

    await expect(sendVerificationCode(ada.email)).resolves.toEqual({ flowId });
    expect(submitted[0]?.body).toEqual({ method: 'code', email: ada.email, csrf_token: '<csrf_token>' });
  });

  it('answers Success when the challenge is passed', async () => {
    server.use(identity.getVerificationFlow(verificationSentEmail));
    const submitted = recording('post', '/self-service/verification', verificationPassedChallenge);

    await expect(verify(flowId, '123456')).resolves.toEqual({ type: 'Success' });
    expect(submitted[0]?.url.searchParams.get('flow')).toBe(flowId);
    expect(submitted[0]?.body).toEqual({ method: 'code', code: '123456', csrf_token: '<csrf_token>' });
  });

  it('answers Failure for an invalid code (HTTP 200 with an error message)', async () => {
    server.use(identity.getVerificationFlow(verificationSentEmail), identity.submitVerification(verificationInvalidCode));

    await expect(verify(flowId, '000000')).resolves.toEqual({
      type: 'Failure',
      messages: ['The verification code is invalid or has already been used. Please try again.'],
    });
  });

  it("throws 'No flow id' when there is no flow to submit to", async () => {
    await expect(verify(undefined, '123456')).rejects.toThrow(new Error('No flow id'));
    await expect(verify('', '123456')).rejects.toThrow(new Error('No flow id'));
  });
});

describe('recovery', () => {
  it('sends the recovery link: Success', async () => {
    server.use(identity.createRecoveryFlow());
    const submitted = recording('post', '/self-service/recovery', recoveryLinkSent);

    await expect(recoverByLink(ada.email)).resolves.toEqual({ type: 'Success', flowId });
    expect(submitted[0]?.body).toEqual({ method: 'link', email: ada.email, csrf_token: '<csrf_token>' });
  });

  it('sends a recovery code: Success with the flow the code belongs to', async () => {
    server.use(identity.createRecoveryFlow(), identity.submitRecovery(recoveryCodeSent));
    await expect(sendRecoveryCode(ada.email)).resolves.toEqual({ type: 'Success', flowId });
  });

  it('answers UserNotFound when identity says the account does not exist (4000037)', async () => {
    const notFound = withMessages(recoveryCodeSent, [{ id: 4000037, text: 'This account does not exist or has no login method configured.', type: 'error' }]);
    server.use(identity.createRecoveryFlow(), identity.submitRecovery({ ...notFound, status: 400 }));

    await expect(recoverByLink(ada.email)).resolves.toEqual({ type: 'UserNotFound' });
  });

  it("throws 'ory.createBrowserLogoutFlow failed' when the recovery flow cannot be created (spec §8)", async () => {
    server.use(identity.createRecoveryFlow(serverError));
    await expect(recoverByLink(ada.email)).rejects.toThrow(new Error('ory.createBrowserLogoutFlow failed'));
  });

  it('completes by code: the 422 is Success, with the settings page to continue at', async () => {
    server.use(identity.getRecoveryFlow(recoveryCodeSent));
    const submitted = recording('post', '/self-service/recovery', recoverySuccess);

    await expect(recoverByCode(flowId, '123456')).resolves.toEqual({
      type: 'Success',
      flowId,
      redirectTo: 'http://localhost:4000/ui/settings?flow=00000000-0000-4000-8000-000000000000',
    });
    expect(submitted[0]?.body).toEqual({ method: 'code', code: '123456', csrf_token: '<csrf_token>' });
  });

  it('completes by code: a 200 without error messages is Success too', async () => {
    const settled = withMessages(recoveryCodeSent, []);
    server.use(identity.getRecoveryFlow(recoveryCodeSent), identity.submitRecovery(settled));
    await expect(recoverByCode(flowId, '123456')).resolves.toEqual({ type: 'Success', flowId });
  });

  it('answers Failure for an invalid code', async () => {
    server.use(identity.getRecoveryFlow(recoveryCodeSent), identity.submitRecovery(recoveryInvalidCode));

    await expect(recoverByCode(flowId, '000000')).resolves.toEqual({
      type: 'Failure',
      messages: ['The recovery code is invalid or has already been used. Please try again.'],
    });
  });

  it("throws 'No flow id' without a flow", async () => {
    await expect(recoverByCode(null, '123456')).rejects.toThrow(new Error('No flow id'));
  });
});

describe('changePassword', () => {
  it('answers Success when the settings flow saved the password', async () => {
    server.use(identity.createSettingsFlow(settingsShowForm));
    const submitted = recording('post', '/self-service/settings', settingsSuccess);

    await expect(changePassword('a much longer secret')).resolves.toEqual({ type: 'Success' });
    expect(submitted[0]?.body).toEqual({ method: 'password', password: 'a much longer secret', csrf_token: '<csrf_token>' });
  });

  it("answers WeakPassword when a message contains 'The password can not be used'", async () => {
    const weak = withNodeMessageText(settingsWeakPassword, 'The password can not be used because it is too similar to the identifier.');
    server.use(identity.createSettingsFlow(), identity.submitSettings(weak));

    await expect(changePassword('ada@example')).resolves.toEqual({
      type: 'WeakPassword',
      messages: ['The password can not be used because it is too similar to the identifier.'],
    });
  });

  it('answers WeakPassword for a breached password (4000034), whose text says so in other words', async () => {
    const text = 'The password has been found in data breaches and must no longer be used.';
    const body = settingsWeakPassword.body as { ui: { nodes: { messages: object[] }[] } };
    const nodes = body.ui.nodes.map((node) => ({ ...node, messages: node.messages.map((message) => ({ ...message, id: 4000034, text })) }));
    server.use(identity.createSettingsFlow(), identity.submitSettings({ ...settingsWeakPassword, body: { ...body, ui: { ...body.ui, nodes } } }));

    await expect(changePassword('password')).resolves.toEqual({ type: 'WeakPassword', messages: [text] });
  });

  it('answers Failure, not WeakPassword, for the recorded min-length message (4000032)', async () => {
    server.use(identity.createSettingsFlow(), identity.submitSettings(settingsWeakPassword));

    await expect(changePassword('short')).resolves.toEqual({
      type: 'Failure',
      messages: ['The password must be at least 8 characters long, but got 5.'],
    });
  });

  it("throws 'ory.createBrowserSettingsFlow failed' without a session", async () => {
    server.use(identity.createSettingsFlow(whoamiNoSession));
    await expect(changePassword('a much longer secret')).rejects.toThrow(new Error('ory.createBrowserSettingsFlow failed'));
  });
});

describe('createSettingsUrl', () => {
  it("returns identity's settings page for the new flow", async () => {
    server.use(identity.createSettingsFlow());
    await expect(createSettingsUrl()).resolves.toBe(`${pub}/ui/settings?flow=${flowId}`);
    await expect(createSettingsUrl('totp')).resolves.toBe(`${pub}/ui/settings?flow=${flowId}#totp`);
  });

  it("throws 'Failed to create settings flow' when identity refuses", async () => {
    server.use(identity.createSettingsFlow(whoamiNoSession));
    await expect(createSettingsUrl()).rejects.toThrow(new Error('Failed to create settings flow'));
  });
});

describe('logout', () => {
  it('creates a logout flow, then sends its token', async () => {
    server.use(identity.createLogoutFlow());
    const submitted = recording('get', '/self-service/logout', { status: 204, body: undefined });

    await expect(logout()).resolves.toBeUndefined();
    expect(submitted[0]?.url.searchParams.get('token')).toBe('ory_lo_<token>');
    expect(submitted[0]?.accept).toBe('application/json');
  });

  it("throws 'ory.createBrowserLogoutFlow failed' without a session", async () => {
    server.use(identity.createLogoutFlow(whoamiNoSession));
    await expect(logout()).rejects.toThrow(new Error('ory.createBrowserLogoutFlow failed'));
  });

  it("throws 'ory.logout failed' when the token is refused", async () => {
    server.use(identity.createLogoutFlow(), identity.submitLogout({ status: 403, body: { error: { code: 403, message: 'token mismatch' } } }));
    await expect(logout()).rejects.toThrow(new Error('ory.logout failed'));
  });
});

describe('session', () => {
  const unverified = {
    ...whoami,
    body: {
      ...whoami.body,
      identity: {
        ...whoami.body.identity,
        verifiable_addresses: whoami.body.identity.verifiable_addresses.map((address) => ({ ...address, verified: false, status: 'sent' })),
      },
    },
  };

  it('is logged-out when whoami answers 401 (no error id)', async () => {
    server.use(identity.whoami(whoamiNoSession));
    await expect(sessionStatus()).resolves.toEqual({ state: 'logged-out' });
  });

  it('is logged-in when the address of the e-mail trait is verified (the recorded whoami)', async () => {
    server.use(identity.whoami(whoami));
    await expect(sessionStatus()).resolves.toMatchObject({ state: 'logged-in', session: { identity: { traits: { email: 'ada@example.com' } } } });
  });

  it('is email-not-verified when that address is not verified', async () => {
    server.use(identity.whoami(unverified));
    await expect(sessionStatus()).resolves.toMatchObject({ state: 'email-not-verified' });
  });

  it("is second-factor-required with whoami's redirect_browser_to while a second factor is pending (403 session_aal2_required)", async () => {
    server.use(identity.whoami(whoamiAal2Required));
    await expect(sessionStatus()).resolves.toEqual({
      state: 'second-factor-required',
      redirectTo: 'http://localhost:4000/self-service/login/browser?aal=aal2',
    });
  });

  it('throws when identity fails otherwise', async () => {
    server.use(identity.whoami(serverError));
    await expect(sessionStatus()).rejects.toThrow('ory.toSession failed');
  });
});
