import verificationChooseMethod from '@meterway/contracts/fixtures/identity/verification-choose-method.json';
import verificationInvalidCode from '@meterway/contracts/fixtures/identity/verification-invalid-code.json';
import verificationPassedChallenge from '@meterway/contracts/fixtures/identity/verification-passed-challenge.json';
import verificationSentEmail from '@meterway/contracts/fixtures/identity/verification-sent-email.json';
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../lib/browser-location';
import { logger } from '../../lib/logger';
import { identityFails, identityUnreachable, recordingPost, renderAuthRoute, secondFactorStep, sessionEmail, sessions } from '../../testing/auth-handlers';
import { identity, type IdentityFixture } from '../../testing/identity-handlers';
import { server } from '../../testing/msw-server';

const flowId = '00000000-0000-4000-8000-000000000000';
const newFlowId = '11111111-1111-4111-8111-111111111111';
const newFlow: IdentityFixture = { ...verificationChooseMethod, body: { ...verificationChooseMethod.body, id: newFlowId } };

beforeEach(() => {
  vi.spyOn(logger, 'warn').mockImplementation(() => {});
});

async function enterCode(view: ReturnType<typeof renderAuthRoute>, code = '123456') {
  await view.user.type(await screen.findByLabelText('Verification code'), code);
  await view.user.click(screen.getByRole('button', { name: 'Verify' }));
}

describe('/verify-email guard', () => {
  it('sends a signed-in visitor whose e-mail is verified to the dashboard', async () => {
    server.use(identity.whoami(sessions.verified));
    const { router } = renderAuthRoute(`/verify-email?flowId=${flowId}`);

    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('sends a visitor who is logged out to login', async () => {
    server.use(identity.whoami(sessions.none));
    const { router } = renderAuthRoute('/verify-email');

    expect(await screen.findByRole('button', { name: 'Login' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it("sends a visitor whose second factor is due to identity's second-factor step, back to verify-email", async () => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    server.use(identity.whoami(sessions.secondFactorPending));
    renderAuthRoute(`/verify-email?flowId=${flowId}`);

    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith(secondFactorStep(`/verify-email?flowId=${flowId}`)));
  });

  it('sends the visitor to login when identity cannot be reached', async () => {
    server.use(identityUnreachable('get', '/sessions/whoami'));
    const { router } = renderAuthRoute('/verify-email');

    expect(await screen.findByRole('button', { name: 'Login' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });
});

describe('/verify-email without a flow', () => {
  beforeEach(() => {
    server.use(identity.whoami(sessions.unverified));
  });

  it("says a new code will be sent to the session's e-mail, with a Send code button and a log-out link", async () => {
    renderAuthRoute('/verify-email');

    expect(await screen.findByText(`Your e-mail address is not verified yet. A new code will be sent to ${sessionEmail}.`)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Send code' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Log out' })).toBeInTheDocument();
    expect(screen.queryByLabelText('Verification code')).not.toBeInTheDocument();
  });

  it('sends a code to that e-mail and moves to its flow', async () => {
    const submitted = recordingPost('/self-service/verification', verificationSentEmail);
    server.use(identity.createVerificationFlow(newFlow), submitted.handler);
    const view = renderAuthRoute('/verify-email');

    await view.user.click(await screen.findByRole('button', { name: 'Send code' }));

    expect(await screen.findByLabelText('Verification code')).toBeInTheDocument();
    expect(view.router.state.location.search).toBe(`?flowId=${newFlowId}`);
    expect(submitted.sent[0]?.body).toMatchObject({ method: 'code', email: sessionEmail });
  });

  it("shows 'ory.createBrowserVerificationFlow failed' when no verification flow can be created", async () => {
    server.use(identityFails('get', '/self-service/verification/browser'));
    const view = renderAuthRoute('/verify-email');

    await view.user.click(await screen.findByRole('button', { name: 'Send code' }));

    expect(await screen.findByText('ory.createBrowserVerificationFlow failed')).toBeInTheDocument();
    expect(screen.getByText('Wooops!')).toBeInTheDocument();
    expect(view.router.state.location.search).toBe('');
  });
});

describe('/verify-email with a flow', () => {
  beforeEach(() => {
    server.use(identity.whoami(sessions.unverified), identity.getVerificationFlow(verificationSentEmail));
  });

  it('shows the code field, Verify, the resend link, the spam-folder hint and the log-out link', async () => {
    renderAuthRoute(`/verify-email?flowId=${flowId}`);

    expect(await screen.findByLabelText('Verification code')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Verify' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Resend email' })).toBeInTheDocument();
    expect(screen.getByText(/check your spam folder/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Log out' })).toBeInTheDocument();
  });

  it('takes exactly 6 characters', async () => {
    const view = renderAuthRoute(`/verify-email?flowId=${flowId}`);

    await view.user.click(await screen.findByRole('button', { name: 'Verify' }));
    expect(screen.getByLabelText('Verification code')).toHaveAccessibleDescription('This field is required');

    await view.user.type(screen.getByLabelText('Verification code'), ' 12345 ');
    await view.user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(screen.getByLabelText('Verification code')).toHaveAccessibleDescription('Minimum length is 6');

    await view.user.clear(screen.getByLabelText('Verification code'));
    await view.user.type(screen.getByLabelText('Verification code'), '1234567');
    await view.user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(screen.getByLabelText('Verification code')).toHaveAccessibleDescription('Maximum length is 6');
  });

  it("verifies the code, shows 'Email verified!' and goes to the dashboard", async () => {
    const submitted = recordingPost('/self-service/verification', verificationPassedChallenge);
    server.use(submitted.handler);
    const view = renderAuthRoute(`/verify-email?flowId=${flowId}`);
    // Something cached while unverified must not survive the verification.
    view.queryClient.setQueryData(['me'], { stale: true });

    await enterCode(view, '123456');

    expect(await screen.findByText('Email verified!')).toBeInTheDocument();
    expect(screen.getByText('Success!')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(view.queryClient.getQueryData(['me'])).toBeUndefined();
    expect(submitted.sent[0]?.query.get('flow')).toBe(flowId);
    expect(submitted.sent[0]?.body).toMatchObject({ method: 'code', code: '123456' });
  });

  it('accepts the flow as identity names it (?flow=)', async () => {
    const submitted = recordingPost('/self-service/verification', verificationPassedChallenge);
    server.use(submitted.handler);
    const view = renderAuthRoute(`/verify-email?flow=${flowId}`);

    await enterCode(view);

    expect(await screen.findByText('Email verified!')).toBeInTheDocument();
    expect(submitted.sent[0]?.query.get('flow')).toBe(flowId);
  });

  it('shows a wrong code in the Failure alert', async () => {
    server.use(identity.submitVerification(verificationInvalidCode));
    const view = renderAuthRoute(`/verify-email?flowId=${flowId}`);

    await enterCode(view);

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Failure')).toBeInTheDocument();
    expect(within(alert).getByText('The verification code is invalid or has already been used. Please try again.')).toBeInTheDocument();
    expect(view.router.state.location.pathname).toBe('/verify-email');
  });

  it('resends the e-mail: a new code on a new flow, and a Success! toast', async () => {
    const submitted = recordingPost('/self-service/verification', verificationSentEmail);
    server.use(identity.createVerificationFlow(newFlow), submitted.handler);
    const view = renderAuthRoute(`/verify-email?flowId=${flowId}`);

    await view.user.click(await screen.findByRole('button', { name: 'Resend email' }));

    expect(await screen.findByText('Success!')).toBeInTheDocument();
    expect(screen.getByText(`We sent a new code to ${sessionEmail}.`)).toBeInTheDocument();
    expect(view.router.state.location.search).toBe(`?flowId=${newFlowId}`);
    expect(submitted.sent[0]?.query.get('flow')).toBe(newFlowId);
    expect(submitted.sent[0]?.body).toMatchObject({ method: 'code', email: sessionEmail });
  });

  it('logs out and goes to login', async () => {
    server.use(identity.createLogoutFlow(), identity.submitLogout());
    const view = renderAuthRoute(`/verify-email?flowId=${flowId}`);
    const logOut = await screen.findByRole('button', { name: 'Log out' });

    server.use(identity.whoami(sessions.none));
    await view.user.click(logOut);

    expect(await screen.findByRole('button', { name: 'Login' })).toBeInTheDocument();
    expect(view.router.state.location.pathname).toBe('/login');
  });

  it("shows 'ory.logout failed' when the session cannot be ended", async () => {
    server.use(identity.createLogoutFlow(), identityFails('get', '/self-service/logout'));
    const view = renderAuthRoute(`/verify-email?flowId=${flowId}`);

    await view.user.click(await screen.findByRole('button', { name: 'Log out' }));

    expect(await screen.findByText('ory.logout failed')).toBeInTheDocument();
    expect(view.router.state.location.pathname).toBe('/verify-email');
  });
});
