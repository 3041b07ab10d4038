import { screen, waitFor } from '@testing-library/react';
import { http } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../lib/browser-location';
import { logger } from '../../lib/logger';
import { creditsHandlers } from '../../testing/credits-handlers';
import { identityUnreachable, renderAuthRoute, secondFactorStep, sessions } from '../../testing/auth-handlers';
import { answer, identity, type IdentityFixture } from '../../testing/identity-handlers';
import { server } from '../../testing/msw-server';
import { testRuntimeConfig } from '../../testing/runtime-config';

/** A whoami that answers only when the test says so. */
function heldWhoami() {
  let release: (fixture: IdentityFixture) => void = () => {};
  const answered = new Promise<IdentityFixture>((resolve) => (release = resolve));
  server.use(http.get(`${testRuntimeConfig.identityUrl}/sessions/whoami`, async () => answer(await answered)));
  return { release: (fixture: IdentityFixture) => release(fixture) };
}

const publicScreens = [
  { path: '/login', heading: 'Log in to your account' },
  { path: '/signup', heading: 'Create your account' },
  { path: '/recover', heading: 'Recover your account' },
];

beforeEach(() => {
  vi.spyOn(logger, 'warn').mockImplementation(() => {});
});

describe('the public screens guard', () => {
  it.each(publicScreens)('sends a signed-in, verified visitor from $path to the dashboard', async ({ path }) => {
    server.use(identity.whoami(sessions.verified));
    const { router } = renderAuthRoute(path);

    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it.each(publicScreens)('sends a signed-in visitor with an unverified e-mail from $path to verify-email', async ({ path }) => {
    server.use(identity.whoami(sessions.unverified));
    const { router } = renderAuthRoute(path);

    expect(await screen.findByRole('button', { name: 'Send code' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/verify-email');
  });

  it.each(publicScreens)('shows $path to a visitor who is logged out', async ({ path, heading }) => {
    server.use(identity.whoami(sessions.none));
    const { router } = renderAuthRoute(path);

    expect(await screen.findByRole('heading', { name: heading })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe(path);
  });

  it('shows the login form before identity has answered, and moves a signed-in visitor on when it does', async () => {
    const whoami = heldWhoami();
    const { router } = renderAuthRoute('/login');

    expect(await screen.findByRole('button', { name: 'Login' })).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toBeInTheDocument();

    whoami.release(sessions.verified);
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it.each(publicScreens)("sends a visitor whose second factor is due from $path to identity's second-factor step, then to the dashboard", async ({ path }) => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    server.use(identity.whoami(sessions.secondFactorPending));
    renderAuthRoute(path);

    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith(secondFactorStep('/dashboard')));
  });

  it('still shows the login screen when identity cannot be reached', async () => {
    server.use(identityUnreachable('get', '/sessions/whoami'));
    const { router } = renderAuthRoute('/login');

    expect(await screen.findByRole('button', { name: 'Login' })).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });

  it.each(publicScreens)('says on $path that payments are not real when the sandbox runs in production', async ({ path }) => {
    server.use(identity.whoami(sessions.none), creditsHandlers.paymentConfig({ paymentProvider: 'sandbox', testModeEverywhere: true }));
    renderAuthRoute(path);

    expect(await screen.findByRole('note', { name: 'Test mode' })).toHaveTextContent(
      'Test mode: payments run in the sandbox, which accepts test cards and charges no real money.',
    );
  });
});
