import recoveryCodeSent from '@meterway/contracts/fixtures/identity/recovery-code-sent.json';
import recoveryLinkSent from '@meterway/contracts/fixtures/identity/recovery-link-sent.json';
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../lib/browser-location';
import { logger } from '../../lib/logger';
import { identityFails, recordingPost, renderAuthRoute, secondFactorStep, sessionAlreadyAvailable, sessions } from '../../testing/auth-handlers';
import { identity, withMessages } from '../../testing/identity-handlers';
import { server } from '../../testing/msw-server';

const linkSentText = "We've sent you an email containing the link to recover your account.";
const userNotFound = withMessages(recoveryLinkSent, [{ id: 4000037, text: 'This account does not exist or has no login method configured.', type: 'error' }]);

beforeEach(() => {
  server.use(identity.whoami(sessions.none));
  vi.spyOn(logger, 'warn').mockImplementation(() => {});
});

async function typeEmail(view: ReturnType<typeof renderAuthRoute>, email = 'ada@example.com') {
  await view.user.type(await screen.findByLabelText('Email'), email);
}

describe('/recover', () => {
  it('shows an e-mail field, the Send recovery link button, the code alternative and a link back to login', async () => {
    renderAuthRoute('/recover');

    expect(await screen.findByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByRole('button', { name: 'Send recovery link' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Use a code instead' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to login' })).toHaveAttribute('href', '/login');
  });

  it('requires an e-mail of at least 3 characters', async () => {
    const view = renderAuthRoute('/recover');

    await view.user.click(await screen.findByRole('button', { name: 'Send recovery link' }));
    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription('This field is required');

    await typeEmail(view, ' ab ');
    await view.user.click(screen.getByRole('button', { name: 'Use a code instead' }));
    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription('Minimum length is 3');
  });

  it('sends the recovery link and says so', async () => {
    const submitted = recordingPost('/self-service/recovery', recoveryLinkSent);
    server.use(identity.createRecoveryFlow(), submitted.handler);
    const view = renderAuthRoute('/recover');
    await typeEmail(view);

    await view.user.click(screen.getByRole('button', { name: 'Send recovery link' }));

    expect(await screen.findByText(linkSentText)).toBeInTheDocument();
    expect(screen.queryByText('Something went wrong')).not.toBeInTheDocument();
    expect(submitted.sent[0]?.body).toMatchObject({ method: 'link', email: 'ada@example.com' });
  });

  it("says 'Something went wrong' when identity does not know the account", async () => {
    server.use(identity.createRecoveryFlow(), identity.submitRecovery(userNotFound));
    const view = renderAuthRoute('/recover');
    await typeEmail(view, 'nobody@example.com');

    await view.user.click(screen.getByRole('button', { name: 'Send recovery link' }));

    expect(within(await screen.findByRole('alert')).getByText('Something went wrong')).toBeInTheDocument();
    expect(screen.queryByText(linkSentText)).not.toBeInTheDocument();
  });

  it("says 'Something went wrong', with identity's messages, when sending fails", async () => {
    const tooOften = withMessages(recoveryLinkSent, [{ id: 4000001, text: 'The request was submitted too often. Please try again later.', type: 'error' }]);
    server.use(identity.createRecoveryFlow(), identity.submitRecovery({ ...tooOften, status: 400 }));
    const view = renderAuthRoute('/recover');
    await typeEmail(view);

    await view.user.click(screen.getByRole('button', { name: 'Send recovery link' }));

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Something went wrong')).toBeInTheDocument();
    expect(within(alert).getByText('The request was submitted too often. Please try again later.')).toBeInTheDocument();
  });

  it('sends a code instead, and continues at /recover-password with its flow', async () => {
    const submitted = recordingPost('/self-service/recovery', recoveryCodeSent);
    server.use(identity.createRecoveryFlow(), submitted.handler, identity.getRecoveryFlow(recoveryCodeSent));
    const view = renderAuthRoute('/recover');
    await typeEmail(view);

    await view.user.click(screen.getByRole('button', { name: 'Use a code instead' }));

    expect(await screen.findByLabelText('Recovery code')).toBeInTheDocument();
    expect(view.router.state.location.pathname).toBe('/recover-password');
    expect(view.router.state.location.search).toBe('?flowId=00000000-0000-4000-8000-000000000000');
    expect(submitted.sent[0]?.body).toMatchObject({ method: 'code', email: 'ada@example.com' });
  });

  it("says 'Something went wrong' when the code cannot be sent", async () => {
    server.use(identity.createRecoveryFlow(), identity.submitRecovery(userNotFound));
    const view = renderAuthRoute('/recover');
    await typeEmail(view, 'nobody@example.com');

    await view.user.click(screen.getByRole('button', { name: 'Use a code instead' }));

    expect(within(await screen.findByRole('alert')).getByText('Something went wrong')).toBeInTheDocument();
    expect(view.router.state.location.pathname).toBe('/recover');
  });

  it.each(['Send recovery link', 'Use a code instead'])(
    'sends a visitor whose second factor is due to that step when identity will not start a recovery (%s)',
    async (button) => {
      const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
      server.use(identity.createRecoveryFlow(sessionAlreadyAvailable('recovery')));
      const view = renderAuthRoute('/recover');
      await typeEmail(view);
      server.use(identity.whoami(sessions.secondFactorPending));

      await view.user.click(screen.getByRole('button', { name: button }));

      await vi.waitFor(() => expect(assign).toHaveBeenCalledWith(secondFactorStep('/dashboard')));
      expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
    },
  );

  it('goes to the dashboard when the browser is signed in already and identity will not start a recovery', async () => {
    server.use(identity.createRecoveryFlow(sessionAlreadyAvailable('recovery')));
    const view = renderAuthRoute('/recover');
    await typeEmail(view);
    server.use(identity.whoami(sessions.verified));

    await view.user.click(screen.getByRole('button', { name: 'Send recovery link' }));

    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(view.router.state.location.pathname).toBe('/dashboard');
  });

  it("shows the wrapper error 'ory.createBrowserLogoutFlow failed' when no recovery flow can be created (spec §8)", async () => {
    server.use(identityFails('get', '/self-service/recovery/browser'));
    const view = renderAuthRoute('/recover');
    await typeEmail(view);

    await view.user.click(screen.getByRole('button', { name: 'Send recovery link' }));

    expect(await screen.findByText('ory.createBrowserLogoutFlow failed')).toBeInTheDocument();
    expect(screen.getByText('Wooops!')).toBeInTheDocument();
  });
});
