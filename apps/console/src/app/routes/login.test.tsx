import loginInvalidCredentials from '@meterway/contracts/fixtures/identity/login-invalid-credentials.json';
import loginSecondFactorRequired from '@meterway/contracts/fixtures/identity/login-second-factor-required.json';
import loginSuccess from '@meterway/contracts/fixtures/identity/login-success.json';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../lib/browser-location';
import { logger } from '../../lib/logger';
import { identityFails, recordingPost, renderAuthRoute, secondFactorStep, sessionAlreadyAvailable, sessions } from '../../testing/auth-handlers';
import { identity, type IdentityFixture } from '../../testing/identity-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';

beforeEach(() => {
  server.use(identity.whoami(sessions.none));
  vi.spyOn(logger, 'warn').mockImplementation(() => {});
});

/** Renders /login and submits valid credentials; `signedIn` is the session identity answers afterwards. */
async function logIn(signedIn?: IdentityFixture) {
  const view = renderAuthRoute('/login');
  await view.user.type(await screen.findByLabelText('Email'), 'ada@example.com');
  await view.user.type(screen.getByLabelText('Password'), 'correct horse battery');
  if (signedIn) server.use(identity.whoami(signedIn));
  await view.user.click(screen.getByRole('button', { name: 'Login' }));
  return view;
}

/** The Mantine components whose styles main.tsx loads for /login's first paint. */
const firstPaintStyles = new Set(
  [...readFileSync(join(import.meta.dirname, '../main.tsx'), 'utf8').matchAll(/@mantine\/core\/styles\/(\w+)\.layer\.css/g)].map((match) => match[1]),
);
const mantineStyles = join(dirname(createRequire(import.meta.filename).resolve('@mantine/core/styles.css')), 'styles');

/** The Mantine components on the page that come with a stylesheet (InputWrapper's is Input's). */
function styledComponentsOnPage(): string[] {
  const names = [...document.body.innerHTML.matchAll(/mantine-([A-Z]\w+)-/g)].map((match) => (match[1] === 'InputWrapper' ? 'Input' : match[1]!));
  return [...new Set(names)].filter((name) => existsSync(join(mantineStyles, `${name}.layer.css`)));
}

describe('/login', () => {
  it('is drawn only with components whose styles its first paint carries', async () => {
    server.use(identity.createLoginFlow(), identity.submitLogin(loginInvalidCredentials));
    const { user } = renderRoute('/login');
    await user.click(await screen.findByRole('button', { name: 'Login' }));
    const shown = styledComponentsOnPage();
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'wrong password');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    await screen.findByRole('alert');
    shown.push(...styledComponentsOnPage());

    expect(shown).toEqual(expect.arrayContaining(['Paper', 'Input', 'Button', 'Alert']));
    expect(shown.filter((name) => !firstPaintStyles.has(name))).toEqual([]);
  });

  it('shows the e-mail and password fields, the Login button and the links to signup and recover', async () => {
    renderRoute('/login');

    expect(await screen.findByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(screen.getByRole('button', { name: 'Login' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign up' })).toHaveAttribute('href', '/signup');
    expect(screen.getByRole('link', { name: 'Forgot password?' })).toHaveAttribute('href', '/recover');
    expect(screen.queryByText('Failure')).not.toBeInTheDocument();
  });

  it('says which fields are required when submitted empty', async () => {
    const { user } = renderRoute('/login');

    await user.click(await screen.findByRole('button', { name: 'Login' }));

    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription('This field is required');
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('This field is required');
  });

  it('counts lengths after trimming', async () => {
    const { user } = renderRoute('/login');

    await user.type(await screen.findByLabelText('Email'), '  ab  ');
    await user.type(screen.getByLabelText('Password'), 'x'.repeat(101));
    await user.click(screen.getByRole('button', { name: 'Login' }));

    expect(screen.getByText('Minimum length is 3')).toBeInTheDocument();
    expect(screen.getByText('Maximum length is 100')).toBeInTheDocument();
  });

  it('logs in with the typed credentials and goes to the dashboard', async () => {
    const submitted = recordingPost('/self-service/login', loginSuccess);
    server.use(identity.createLoginFlow(), submitted.handler);

    const { router } = await logIn(sessions.verified);

    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(submitted.sent[0]?.body).toMatchObject({ method: 'password', identifier: 'ada@example.com', password: 'correct horse battery' });
  });

  it("asks for the code identity mailed when other browsers' failures capped the address, and logs in with it (issue #53)", async () => {
    // loginInvalidCredentials' flow in the step identity's abuse test answers: sent_email, a code node, message 1010014.
    const flow = loginInvalidCredentials.body;
    const csrfNode = flow.ui.nodes.find((node) => (node.attributes as { name?: string }).name === 'csrf_token')!;
    const codeSent = {
      status: 400,
      body: {
        ...flow,
        state: 'sent_email',
        active: 'code',
        ui: {
          ...flow.ui,
          nodes: [
            csrfNode,
            {
              type: 'input',
              group: 'code',
              attributes: { name: 'code', type: 'text', required: true, disabled: false, node_type: 'input' },
              messages: [],
              meta: {},
            },
          ],
          messages: [
            {
              id: 1010014,
              type: 'info',
              text: "A code was sent to the address you provided. If you didn't receive it, please check the spelling of the address and try again.",
            },
          ],
        },
      },
    };
    const submitted = recordingPost('/self-service/login', codeSent);
    server.use(identity.createLoginFlow(), submitted.handler);
    const { user, router } = await logIn();

    expect(await screen.findByRole('heading', { name: 'Check your e-mail' })).toBeInTheDocument();
    expect(screen.getByText('We sent a sign-in code to ada@example.com.')).toBeInTheDocument();
    server.use(
      recordingPost('/self-service/login', {
        status: 400,
        body: { ...codeSent.body, ui: { ...codeSent.body.ui, messages: [loginInvalidCredentials.body.ui.messages[0]] } },
      }).handler,
    );
    await user.type(screen.getByLabelText('Sign-in code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/The provided credentials are invalid/);

    const withCode = recordingPost('/self-service/login', loginSuccess);
    server.use(withCode.handler, identity.whoami(sessions.verified));
    await user.clear(screen.getByLabelText('Sign-in code'));
    await user.type(screen.getByLabelText('Sign-in code'), '654321');
    await user.click(screen.getByRole('button', { name: 'Log in' }));

    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(withCode.sent[0]?.query.get('flow')).toBe(flow.id);
    expect(withCode.sent[0]?.body).toEqual({
      method: 'code',
      code: '654321',
      identifier: 'ada@example.com',
      csrf_token: (csrfNode.attributes as { value: string }).value,
    });
  });

  it('lists the returned messages in a red Failure alert', async () => {
    server.use(identity.createLoginFlow(), identity.submitLogin(loginInvalidCredentials));

    const { router } = await logIn();

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Failure')).toBeInTheDocument();
    expect(
      within(alert).getByText(
        'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.',
      ),
    ).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('sends a visitor whose e-mail is not verified to verify-email', async () => {
    server.use(identity.createLoginFlow(), identity.submitLogin(loginSuccess));

    const { router } = await logIn(sessions.unverified);

    expect(await screen.findByRole('button', { name: 'Send code' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/verify-email');
  });

  it('goes to verify-email with the flow identity already mailed a code for, when it says so', async () => {
    const unverified: IdentityFixture = {
      status: 403,
      body: {
        error: {
          id: 'session_verified_address_required',
          code: 403,
          message: 'your email or phone address is not yet verified',
          details: {
            continue_with: [{ action: 'show_verification_ui', flow: { id: 'verification-1', verifiable_address: 'ada@example.com' } }],
          },
        },
      },
    };
    server.use(identity.createLoginFlow(), identity.submitLogin(unverified));

    const { router } = await logIn(sessions.unverified);

    expect(await screen.findByLabelText('Verification code')).toBeInTheDocument();
    expect(router.state.location.search).toBe('?flowId=verification-1');
  });

  it('hands the browser to identity when a second factor is required', async () => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    server.use(identity.createLoginFlow(), identity.submitLogin(loginSecondFactorRequired));

    await logIn();

    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('http://localhost:4000/self-service/login/browser?aal=aal2'));
  });

  it('sends a visitor whose second factor is due to that step when identity will not start a login (session_already_available)', async () => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    server.use(identity.createLoginFlow(sessionAlreadyAvailable('login')));

    await logIn(sessions.secondFactorPending);

    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith(secondFactorStep('/dashboard')));
    expect(screen.queryByText('ory.createBrowserLoginFlow failed')).not.toBeInTheDocument();
  });

  it('goes to the dashboard when the browser already has a complete session (session_already_available)', async () => {
    server.use(identity.createLoginFlow(sessionAlreadyAvailable('login')));

    const { router } = await logIn(sessions.verified);

    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
  });

  it("shows 'ory.createBrowserLoginFlow failed' when no login flow can be created", async () => {
    server.use(identityFails('get', '/self-service/login/browser'));

    await logIn();

    expect(await screen.findByText('ory.createBrowserLoginFlow failed')).toBeInTheDocument();
    expect(screen.getByText('Wooops!')).toBeInTheDocument();
  });
});
