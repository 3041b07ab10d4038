import registrationSuccess from '@meterway/contracts/fixtures/identity/registration-success.json';
import verificationPassedChallenge from '@meterway/contracts/fixtures/identity/verification-passed-challenge.json';
import verificationSentEmail from '@meterway/contracts/fixtures/identity/verification-sent-email.json';
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../lib/browser-location';
import { logger } from '../../lib/logger';
import { pendingInvitation, savePendingInvitation } from '../../lib/pending-invitation';
import { secondFactorStep, sessions } from '../../testing/auth-handlers';
import { identity } from '../../testing/identity-handlers';
import type { RecordedRequest } from '../../testing/keys-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { buildMembership, membersHandlers } from '../../testing/members-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';

// The invitation link (issue #21), through the real guards; the dashboard is a stand-in.
vi.mock('./dashboard', () => ({ Component: () => <h1>dashboard screen</h1> }));

beforeAll(() => Promise.all([import('./invitation'), import('./app-layout'), import('./signup'), import('./verify-email')]), 30_000);

beforeEach(() => {
  vi.spyOn(logger, 'warn').mockImplementation(() => {});
});
afterEach(() => sessionStorage.clear());

// The shape the api mails: the inviting organisation's id, a dot, 32 random bytes in base64url.
const token = '0b5e3f9a-7c41-4d2e-9a86-3f1c5d7e2b90.q8Vn2xK4pL7sR1tY6wZ3aB5cD9eF0gH2iJ4kM6nO8pQ';
const joined = buildMembership({ organizationName: 'Difference Engines', role: 'developer' });
const inJoined = { organizationId: joined.organizationId, organizationName: joined.organizationName, role: joined.role };
const toast = (title: 'Wooops!' | 'Success!') => screen.findByText(title).then((element) => element.closest('.mantine-Notification-root') as HTMLElement);

describe('/invitations/:token signed in', () => {
  it('accepts the invitation, says so and lands on the dashboard of the organisation joined', async () => {
    const requests: RecordedRequest[] = [];
    server.use(identity.whoami(sessions.verified), membersHandlers.accept(joined, { requests }), meHandlers.signedIn(inJoined));
    const { router } = renderRoute(`/invitations/${token}`);

    expect(within(await toast('Success!')).getByText('You joined Difference Engines')).toBeInTheDocument();
    expect(requests).toEqual([{ body: { token } }]);
    expect(await screen.findByRole('heading', { name: 'dashboard screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(screen.getByRole('banner')).toHaveTextContent('Difference Engines');
    expect(pendingInvitation()).toBeUndefined();
  });

  it.each([
    [404, 'This invitation has expired or was revoked'],
    [403, 'This invitation is for grace@example.com; you are signed in as ada@example.com'],
  ])("shows the api's %i in its own words, with the way to the dashboard", async (status, detail) => {
    server.use(identity.whoami(sessions.verified), membersHandlers.accept(joined, { failure: status, refusal: { detail } }));
    const { user, router } = renderRoute(`/invitations/${token}`);

    expect(await screen.findByText(detail)).toBeInTheDocument();
    expect(screen.getByText('This invitation cannot be accepted')).toBeInTheDocument();
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
    // Refused once, the invitation is not offered again by the next signed-in screen.
    expect(pendingInvitation()).toBeUndefined();

    server.use(meHandlers.signedIn());
    await user.click(screen.getByRole('link', { name: 'Go to the dashboard' }));
    expect(await screen.findByRole('heading', { name: 'dashboard screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it("sends a person whose second factor is due to identity's step, back to the invitation", async () => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    server.use(identity.whoami(sessions.secondFactorPending));
    renderRoute(`/invitations/${token}`);

    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith(secondFactorStep(`/invitations/${token}`)));
    expect(pendingInvitation()).toBe(token);
  });
});

describe('/invitations/:token signed out', () => {
  it('offers to sign up or log in, keeping the invitation for when they are in', async () => {
    server.use(identity.whoami(sessions.none));
    renderRoute(`/invitations/${token}`);

    expect(await screen.findByText(/You have been invited to an organisation/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign up' })).toHaveAttribute('href', '/signup');
    expect(screen.getByRole('link', { name: 'Log in' })).toHaveAttribute('href', '/login');
    expect(pendingInvitation()).toBe(token);
  });

  it('goes on to verify-email while the address is not verified yet', async () => {
    server.use(identity.whoami(sessions.unverified));
    const { router } = renderRoute(`/invitations/${token}`);

    expect(await screen.findByRole('button', { name: 'Send code' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/verify-email');
    expect(pendingInvitation()).toBe(token);
  });

  it('signs up, verifies the address by code and joins: the invitation survives the way through', async () => {
    const accepted: RecordedRequest[] = [];
    server.use(
      identity.whoami(sessions.none),
      identity.createRegistrationFlow(),
      identity.submitRegistration(registrationSuccess),
      identity.getVerificationFlow(verificationSentEmail),
      identity.submitVerification(verificationPassedChallenge),
      membersHandlers.accept(joined, { requests: accepted }),
      // A new person's own organisation first; after accepting, the one joined.
      meHandlers.sequence({}, inJoined),
    );
    const { user, router } = renderRoute(`/invitations/${token}`);

    await user.click(await screen.findByRole('link', { name: 'Sign up' }));
    await user.type(await screen.findByLabelText('Email'), 'grace@example.com');
    await user.type(screen.getByLabelText('Password'), 'correct horse battery');
    await user.click(screen.getByRole('checkbox'));
    server.use(identity.whoami(sessions.unverified));
    await user.click(screen.getByRole('button', { name: 'Sign up' }));

    await user.type(await screen.findByLabelText('Verification code'), '123456');
    server.use(identity.whoami(sessions.verified));
    await user.click(screen.getByRole('button', { name: 'Verify' }));

    // After 'Email verified!', the toast of joining.
    expect(await screen.findByText('You joined Difference Engines')).toBeInTheDocument();
    expect(accepted).toEqual([{ body: { token } }]);
    expect(await screen.findByRole('heading', { name: 'dashboard screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
    await waitFor(() => expect(screen.getByRole('banner')).toHaveTextContent('Difference Engines'));
    expect(pendingInvitation()).toBeUndefined();
  });

  it('logs in and joins: the first signed-in screen takes the invitation up', async () => {
    const accepted: RecordedRequest[] = [];
    savePendingInvitation(token);
    server.use(identity.whoami(sessions.verified), membersHandlers.accept(joined, { requests: accepted }), meHandlers.sequence({}, inJoined));
    const { router } = renderRoute('/dashboard');

    expect(within(await toast('Success!')).getByText('You joined Difference Engines')).toBeInTheDocument();
    expect(accepted).toEqual([{ body: { token } }]);
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(pendingInvitation()).toBeUndefined();
  });
});
