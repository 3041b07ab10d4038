import registrationSessionAlreadyAvailable from '@meterway/contracts/fixtures/identity/registration-session-already-available.json';
import registrationInvalid from '@meterway/contracts/fixtures/identity/registration-invalid.json';
import registrationSuccess from '@meterway/contracts/fixtures/identity/registration-success.json';
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../lib/browser-location';
import { logger } from '../../lib/logger';
import { identityFails, recordingPost, renderAuthRoute, secondFactorStep, sessions } from '../../testing/auth-handlers';
import { identity, type IdentityFixture } from '../../testing/identity-handlers';
import { server } from '../../testing/msw-server';

beforeEach(() => {
  server.use(identity.whoami(sessions.none));
  vi.spyOn(logger, 'warn').mockImplementation(() => {});
});

async function fillIn(view: ReturnType<typeof renderAuthRoute>, { agree = true } = {}) {
  await view.user.type(await screen.findByLabelText('Email'), 'ada@example.com');
  await view.user.type(screen.getByLabelText('Password'), 'correct horse battery');
  if (agree) await view.user.click(screen.getByRole('checkbox'));
}

describe('/signup', () => {
  it('shows e-mail, password, the terms checkbox with its documents, a Sign up button and a link back to login', async () => {
    renderAuthRoute('/signup');

    expect(await screen.findByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(screen.getByRole('checkbox', { name: 'I agree to the terms of service and privacy policy' })).not.toBeChecked();
    expect(screen.getByRole('link', { name: 'terms of service' })).toHaveAttribute('href', '/terms-of-service');
    expect(screen.getByRole('link', { name: 'terms of service' })).toHaveAttribute('target', '_blank');
    expect(screen.getByRole('link', { name: 'privacy policy' })).toHaveAttribute('href', '/terms-of-service#privacy');
    expect(screen.getByRole('button', { name: 'Sign up' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Log in' })).toHaveAttribute('href', '/login');
  });

  it('requires every field, and the terms to be accepted', async () => {
    const { user } = renderAuthRoute('/signup');

    await user.click(await screen.findByRole('button', { name: 'Sign up' }));

    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription('This field is required');
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('This field is required');
    expect(screen.getByRole('checkbox', { name: 'I agree to the terms of service and privacy policy' })).toHaveAccessibleDescription(
      'You must agree to the terms of service and privacy policy to create an account',
    );
  });

  it('counts lengths after trimming: 3 to 100 characters', async () => {
    const { user } = renderAuthRoute('/signup');

    await user.type(await screen.findByLabelText('Email'), ' ab ');
    await user.type(screen.getByLabelText('Password'), 'p'.repeat(101));
    await user.click(screen.getByRole('button', { name: 'Sign up' }));

    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription('Minimum length is 3');
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('Maximum length is 100');
  });

  it('registers and goes to verify-email with the verification flow', async () => {
    const submitted = recordingPost('/self-service/registration', registrationSuccess);
    server.use(identity.createRegistrationFlow(), submitted.handler);
    const view = renderAuthRoute('/signup');
    await fillIn(view);

    server.use(identity.whoami(sessions.unverified));
    await view.user.click(screen.getByRole('button', { name: 'Sign up' }));

    expect(await screen.findByLabelText('Verification code')).toBeInTheDocument();
    expect(view.router.state.location.pathname).toBe('/verify-email');
    expect(view.router.state.location.search).toBe('?flowId=00000000-0000-4000-8000-000000000000');
    expect(submitted.sent[0]?.body).toMatchObject({ method: 'password', traits: { email: 'ada@example.com' }, password: 'correct horse battery' });
  });

  it('does not register without the terms accepted', async () => {
    const submitted = recordingPost('/self-service/registration', registrationSuccess);
    server.use(identity.createRegistrationFlow(), submitted.handler);
    const view = renderAuthRoute('/signup');
    await fillIn(view, { agree: false });

    await view.user.click(screen.getByRole('button', { name: 'Sign up' }));

    expect(screen.getByText('You must agree to the terms of service and privacy policy to create an account')).toBeInTheDocument();
    expect(submitted.sent).toHaveLength(0);
  });

  it('lists the returned messages in a red Failure alert', async () => {
    server.use(identity.createRegistrationFlow(), identity.submitRegistration(registrationInvalid));
    const view = renderAuthRoute('/signup');
    await fillIn(view);

    await view.user.click(screen.getByRole('button', { name: 'Sign up' }));

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Failure')).toBeInTheDocument();
    expect(within(alert).getByText('Enter a valid email address')).toBeInTheDocument();
    expect(view.router.state.location.pathname).toBe('/signup');
  });

  it("says 'No verification flow found' when identity registers without starting a verification", async () => {
    const { continue_with: _dropped, ...withoutVerification } = registrationSuccess.body;
    const registered: IdentityFixture = { status: 200, body: withoutVerification };
    server.use(identity.createRegistrationFlow(), identity.submitRegistration(registered));
    const view = renderAuthRoute('/signup');
    await fillIn(view);

    await view.user.click(screen.getByRole('button', { name: 'Sign up' }));

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Failure')).toBeInTheDocument();
    expect(within(alert).getByText('No verification flow found')).toBeInTheDocument();
  });

  it('sends a visitor whose second factor is due to that step when identity will not start a registration (session_already_available)', async () => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    server.use(identity.createRegistrationFlow(registrationSessionAlreadyAvailable));
    const view = renderAuthRoute('/signup');
    await fillIn(view);
    server.use(identity.whoami(sessions.secondFactorPending));

    await view.user.click(screen.getByRole('button', { name: 'Sign up' }));

    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith(secondFactorStep('/dashboard')));
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
  });

  it('goes to the dashboard when the browser is signed in already (session_already_available)', async () => {
    server.use(identity.createRegistrationFlow(registrationSessionAlreadyAvailable));
    const view = renderAuthRoute('/signup');
    await fillIn(view);
    server.use(identity.whoami(sessions.verified));

    await view.user.click(screen.getByRole('button', { name: 'Sign up' }));

    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(view.router.state.location.pathname).toBe('/dashboard');
  });

  it("shows 'ory.createBrowserRegistrationFlow failed' when no registration flow can be created", async () => {
    server.use(identityFails('get', '/self-service/registration/browser'));
    const view = renderAuthRoute('/signup');
    await fillIn(view);

    await view.user.click(screen.getByRole('button', { name: 'Sign up' }));

    expect(await screen.findByText('ory.createBrowserRegistrationFlow failed')).toBeInTheDocument();
    expect(screen.getByText('Wooops!')).toBeInTheDocument();
  });
});
