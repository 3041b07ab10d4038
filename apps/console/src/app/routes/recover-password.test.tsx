import recoveryChooseMethod from '@meterway/contracts/fixtures/identity/recovery-choose-method.json';
import recoveryCodeSent from '@meterway/contracts/fixtures/identity/recovery-code-sent.json';
import recoveryInvalidCode from '@meterway/contracts/fixtures/identity/recovery-invalid-code.json';
import recoverySuccess from '@meterway/contracts/fixtures/identity/recovery-success.json';
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../lib/browser-location';
import { logger } from '../../lib/logger';
import { identityFails, recordingPost, renderAuthRoute } from '../../testing/auth-handlers';
import { identity, withMessages } from '../../testing/identity-handlers';
import { server } from '../../testing/msw-server';

const flowId = '00000000-0000-4000-8000-000000000000';

beforeEach(() => {
  vi.spyOn(logger, 'warn').mockImplementation(() => {});
});

async function enterCode(view: ReturnType<typeof renderAuthRoute>, code = '123456') {
  await view.user.type(await screen.findByLabelText('Recovery code'), code);
  await view.user.click(screen.getByRole('button', { name: 'Recover account' }));
}

describe('/recover-password', () => {
  it('explains that no recovery is in progress without a flow, and links to /recover', async () => {
    renderAuthRoute('/recover-password');

    expect(await screen.findByText('There is no account recovery in progress. Start one by requesting a recovery e-mail.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Request a new recovery e-mail' })).toHaveAttribute('href', '/recover');
    expect(screen.queryByLabelText('Recovery code')).not.toBeInTheDocument();
  });

  it('takes exactly 6 characters', async () => {
    server.use(identity.getRecoveryFlow(recoveryCodeSent));
    const view = renderAuthRoute(`/recover-password?flowId=${flowId}`);

    await view.user.click(await screen.findByRole('button', { name: 'Recover account' }));
    expect(screen.getByLabelText('Recovery code')).toHaveAccessibleDescription('This field is required');

    await view.user.type(screen.getByLabelText('Recovery code'), '12345');
    await view.user.click(screen.getByRole('button', { name: 'Recover account' }));
    expect(screen.getByLabelText('Recovery code')).toHaveAccessibleDescription('Minimum length is 6');

    await view.user.type(screen.getByLabelText('Recovery code'), '67');
    await view.user.click(screen.getByRole('button', { name: 'Recover account' }));
    expect(screen.getByLabelText('Recovery code')).toHaveAccessibleDescription('Maximum length is 6');
  });

  it("submits the code on the flow and opens identity's settings page to choose the new password", async () => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    const submitted = recordingPost('/self-service/recovery', recoverySuccess);
    server.use(identity.getRecoveryFlow(recoveryCodeSent), submitted.handler);
    const view = renderAuthRoute(`/recover-password?flowId=${flowId}`);

    await enterCode(view, '123456');

    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith(`http://localhost:4000/ui/settings?flow=${flowId}`));
    expect(submitted.sent[0]?.query.get('flow')).toBe(flowId);
    expect(submitted.sent[0]?.body).toMatchObject({ method: 'code', code: '123456' });
  });

  it('accepts the flow as identity names it (?flow=)', async () => {
    vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    const submitted = recordingPost('/self-service/recovery', recoverySuccess);
    server.use(identity.getRecoveryFlow(recoveryCodeSent), submitted.handler);
    const view = renderAuthRoute(`/recover-password?flow=${flowId}`);

    await enterCode(view);

    await vi.waitFor(() => expect(submitted.sent[0]?.query.get('flow')).toBe(flowId));
  });

  it('goes to the dashboard when identity names no settings page', async () => {
    server.use(identity.getRecoveryFlow(recoveryCodeSent), identity.submitRecovery(recoveryCodeSent));
    const view = renderAuthRoute(`/recover-password?flowId=${flowId}`);

    await enterCode(view);

    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  });

  it("says 'Something went wrong', with identity's message, for a wrong code", async () => {
    server.use(identity.getRecoveryFlow(recoveryCodeSent), identity.submitRecovery(recoveryInvalidCode));
    const view = renderAuthRoute(`/recover-password?flowId=${flowId}`);

    await enterCode(view);

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Something went wrong')).toBeInTheDocument();
    expect(within(alert).getByText('The recovery code is invalid or has already been used. Please try again.')).toBeInTheDocument();
    expect(view.router.state.location.pathname).toBe('/recover-password');
  });

  it('still takes the code when the flow cannot be read first', async () => {
    vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    server.use(identityFails('get', '/self-service/recovery/flows'), identity.submitRecovery(recoveryInvalidCode));
    const view = renderAuthRoute(`/recover-password?flowId=${flowId}`);

    await enterCode(view);

    expect(within(await screen.findByRole('alert')).getByText('Something went wrong')).toBeInTheDocument();
  });

  it('explains an expired or used recovery link that identity sent back here, and offers a new one', async () => {
    const linkRejected = withMessages(recoveryChooseMethod, [
      { id: 4060004, text: 'The recovery token is invalid or has already been used. Please retry the flow.', type: 'error' },
    ]);
    server.use(identity.getRecoveryFlow(linkRejected));
    renderAuthRoute(`/recover-password?flow=${flowId}`);

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Something went wrong')).toBeInTheDocument();
    expect(within(alert).getByText('The recovery token is invalid or has already been used. Please retry the flow.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Request a new recovery e-mail' })).toHaveAttribute('href', '/recover');
    expect(screen.queryByLabelText('Recovery code')).not.toBeInTheDocument();
  });
});
