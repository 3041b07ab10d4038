import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { flowGone, noSession, sessionAal2Required, sessionRefreshRequired } from '../testing/errors';
import afterRecovery from '../testing/fixtures/settings-after-recovery.json';
import passwordPolicy from '../testing/fixtures/settings-password-policy.json';
import showForm from '../testing/fixtures/settings-show-form.json';
import success from '../testing/fixtures/settings-success.json';
import totpLinked from '../testing/fixtures/settings-totp-linked.json';
import loginRefresh from '../testing/fixtures/login-refresh.json';
import loginSuccess from '../testing/fixtures/login-success.json';
import { server } from '../testing/msw-server';
import { mockNavigation, renderPage } from '../testing/render';

const PUB = 'http://localhost:4000';
const flowId = showForm.id;
const csrf = (flow: { ui: { nodes: { attributes: { name?: string; value?: unknown } }[] } }) =>
  flow.ui.nodes.find((node) => node.attributes.name === 'csrf_token')?.attributes.value;

/** Serves `flow` for getSettingsFlow and records every settings submit body. */
function settingsApi(flow: object, answers: Array<() => Response> = []) {
  const bodies: unknown[] = [];
  server.use(
    http.get(`${PUB}/self-service/settings/flows`, ({ request }) =>
      new URL(request.url).searchParams.get('id') === flowId ? HttpResponse.json(flow) : HttpResponse.json(flowGone(), { status: 404 }),
    ),
    http.post(`${PUB}/self-service/settings`, async ({ request }) => {
      expect(new URL(request.url).searchParams.get('flow')).toBe(flowId);
      bodies.push(await request.json());
      const answer = answers.shift();
      if (!answer) throw new Error('unexpected settings submit');
      return answer();
    }),
  );
  return bodies;
}

const card = (group: string) => screen.getByTestId(`ory/screen/settings/group/${group}`);
/** The new-password field; the card itself is also named "Password", by its heading. */
const passwordField = async () => within(await screen.findByTestId('ory/screen/settings/group/password')).getByLabelText('Password');

describe('/ui/settings', () => {
  it('renders one card per group with labelled inputs, the QR code and the secret', async () => {
    settingsApi(showForm);
    renderPage(`/ui/settings?flow=${flowId}`);

    expect(await screen.findByRole('heading', { name: 'Account settings' })).toBeInTheDocument();
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();

    const profile = card('profile');
    expect(within(profile).getByRole('heading', { name: 'E-mail address' })).toBeInTheDocument();
    expect(within(profile).getByLabelText('E-Mail')).toHaveValue('ada@example.com');
    expect(within(profile).getByLabelText('E-Mail')).toHaveAttribute('type', 'email');
    expect(within(profile).getByRole('button', { name: 'Save' })).toBeInTheDocument();

    const password = card('password');
    expect(within(password).getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(within(password).getByLabelText('Password')).toHaveAttribute('autocomplete', 'new-password');
    expect(within(password).getByRole('button', { name: 'Save' })).toBeInTheDocument();

    const totp = card('totp');
    expect(totp).toHaveAttribute('id', 'totp');
    expect(within(totp).getByRole('img', { name: 'Authenticator app QR code' })).toHaveAttribute('src', expect.stringMatching(/^data:image\/png;base64,/));
    expect(within(totp).getByText('This is your authenticator app secret. Use it if you can not scan the QR code.')).toBeInTheDocument();
    expect(within(totp).getByText('JBSWY3DPEHPK3PXPKRXW6ZLUMVZGKY3B')).toBeInTheDocument();
    expect(within(totp).getByLabelText('Verify code')).toHaveAttribute('autocomplete', 'one-time-code');
    expect(within(totp).getByRole('button', { name: 'Save' })).toBeInTheDocument();
    expect(within(totp).queryByRole('button', { name: 'Unlink TOTP Authenticator App' })).not.toBeInTheDocument();

    // Nothing to report yet, and the CSRF token is never a visible field.
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getAllByRole('textbox').map((box) => box.getAttribute('name'))).toEqual(['traits.email', 'totp_code']);
  });

  it('submits only the password card, then shows the saved message from the returned flow', async () => {
    const bodies = settingsApi(showForm, [() => HttpResponse.json(success)]);
    const { user } = renderPage(`/ui/settings?flow=${flowId}`);

    await user.type(await passwordField(), 'correct horse battery');
    await user.click(within(card('password')).getByRole('button', { name: 'Save' }));

    expect(await within(card('password')).findByText('Your changes have been saved!')).toBeInTheDocument();
    expect(bodies).toEqual([{ csrf_token: csrf(showForm), method: 'password', password: 'correct horse battery' }]);
    // The form starts over from the new flow: the password is not kept.
    expect(within(card('password')).getByLabelText('Password')).toHaveValue('');
  });

  it('submits the e-mail change as nested traits', async () => {
    const bodies = settingsApi(showForm, [() => HttpResponse.json(success)]);
    const { user } = renderPage(`/ui/settings?flow=${flowId}`);

    const email = await screen.findByLabelText('E-Mail');
    await user.clear(email);
    await user.type(email, 'grace@example.com');
    await user.click(within(card('profile')).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Your changes have been saved!')).toBeInTheDocument();
    expect(bodies).toEqual([{ csrf_token: csrf(showForm), method: 'profile', traits: { email: 'grace@example.com' } }]);
  });

  it('shows a 400 password policy message under the password field', async () => {
    settingsApi(showForm, [() => HttpResponse.json(passwordPolicy, { status: 400 })]);
    const { user } = renderPage(`/ui/settings?flow=${flowId}`);

    await user.type(await passwordField(), 'abc');
    await user.click(within(card('password')).getByRole('button', { name: 'Save' }));

    await waitFor(() =>
      expect(within(card('password')).getByLabelText('Password')).toHaveAccessibleDescription('The password must be at least 8 characters long, but got 3.'),
    );
    expect(within(card('password')).getByLabelText('Password')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.queryByText('Your changes have been saved!')).not.toBeInTheDocument();
  });

  it('asks for the password on session_refresh_required, signs in again and re-submits with the new CSRF token', async () => {
    const refreshedFlow = { ...showForm, ui: { ...showForm.ui, nodes: success.ui.nodes } };
    const bodies = settingsApi(showForm, [() => HttpResponse.json(sessionRefreshRequired(flowId), { status: 403 }), () => HttpResponse.json(success)]);
    const loginBodies: unknown[] = [];
    let refreshRequested = false;
    server.use(
      http.get(`${PUB}/self-service/login/browser`, ({ request }) => {
        refreshRequested = new URL(request.url).searchParams.get('refresh') === 'true';
        return HttpResponse.json(loginRefresh);
      }),
      http.post(`${PUB}/self-service/login`, async ({ request }) => {
        expect(new URL(request.url).searchParams.get('flow')).toBe(loginRefresh.id);
        loginBodies.push(await request.json());
        return HttpResponse.json(loginSuccess);
      }),
    );
    const { user } = renderPage(`/ui/settings?flow=${flowId}`);

    await user.type(await passwordField(), 'a brand new secret');
    await user.click(within(card('password')).getByRole('button', { name: 'Save' }));

    const dialog = await screen.findByRole('dialog', { name: "Confirm it's you" });
    // The settings flow is fetched again after the sign-in: from now on it carries the new token.
    server.use(http.get(`${PUB}/self-service/settings/flows`, () => HttpResponse.json(refreshedFlow)));
    await user.type(within(dialog).getByLabelText('Password'), 'the old password');
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));

    expect(await screen.findByText('Your changes have been saved!')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(refreshRequested).toBe(true);
    expect(loginBodies).toEqual([{ method: 'password', identifier: 'ada@example.com', password: 'the old password', csrf_token: csrf(loginRefresh) }]);
    expect(bodies).toEqual([
      { csrf_token: csrf(showForm), method: 'password', password: 'a brand new secret' },
      { csrf_token: csrf(refreshedFlow), method: 'password', password: 'a brand new secret' },
    ]);
    expect(csrf(refreshedFlow)).not.toBe(csrf(showForm));
  });

  it('keeps the prompt open with the reason when the password is wrong', async () => {
    settingsApi(showForm, [() => HttpResponse.json(sessionRefreshRequired(flowId), { status: 403 })]);
    const rejected = {
      ...loginRefresh,
      ui: {
        ...loginRefresh.ui,
        messages: [
          {
            id: 4000006,
            text: 'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.',
            type: 'error',
          },
        ],
      },
    };
    server.use(
      http.get(`${PUB}/self-service/login/browser`, () => HttpResponse.json(loginRefresh)),
      http.post(`${PUB}/self-service/login`, () => HttpResponse.json(rejected, { status: 400 })),
    );
    const { user } = renderPage(`/ui/settings?flow=${flowId}`);

    await user.type(await passwordField(), 'a brand new secret');
    await user.click(within(card('password')).getByRole('button', { name: 'Save' }));
    const dialog = await screen.findByRole('dialog', { name: "Confirm it's you" });
    await user.type(within(dialog).getByLabelText('Password'), 'wrong');
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));

    expect(await within(dialog).findByText(/The provided credentials are invalid/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('links the authenticator app with the code', async () => {
    const bodies = settingsApi(showForm, [
      () => HttpResponse.json({ ...totpLinked, state: 'success', ui: { ...totpLinked.ui, messages: success.ui.messages } }),
    ]);
    const { user } = renderPage(`/ui/settings?flow=${flowId}`);

    await user.type(await screen.findByLabelText('Verify code'), '492039');
    await user.click(within(card('totp')).getByRole('button', { name: 'Save' }));

    expect(await within(card('totp')).findByRole('button', { name: 'Unlink TOTP Authenticator App' })).toBeInTheDocument();
    expect(within(card('totp')).getByText('Your changes have been saved!')).toBeInTheDocument();
    expect(bodies).toEqual([{ csrf_token: csrf(showForm), method: 'totp', totp_code: '492039' }]);
  });

  it('unlinks the authenticator app with totp_unlink: true', async () => {
    const bodies = settingsApi(totpLinked, [() => HttpResponse.json(success)]);
    const { user } = renderPage(`/ui/settings?flow=${flowId}`);

    const totp = await screen.findByTestId('ory/screen/settings/group/totp');
    expect(within(totp).queryByRole('img')).not.toBeInTheDocument();
    expect(within(totp).queryByLabelText('Verify code')).not.toBeInTheDocument();
    await user.click(within(totp).getByRole('button', { name: 'Unlink TOTP Authenticator App' }));

    expect(await screen.findByText('Your changes have been saved!')).toBeInTheDocument();
    expect(bodies).toEqual([{ csrf_token: csrf(totpLinked), method: 'totp', totp_unlink: true }]);
  });

  it('shows the recovery message at the top', async () => {
    settingsApi(afterRecovery);
    renderPage(`/ui/settings?flow=${flowId}`);

    const alert = await screen.findByRole('alert');
    // Kratos' 1060001 text suggests social sign-in, which does not exist here; the page words it for this service.
    expect(alert).toHaveTextContent(/^You recovered your account\. Choose a new password within the next 60 minutes\.$/);
    expect(alert).not.toHaveTextContent(/social/);
    // It comes before the cards.
    expect(alert.compareDocumentPosition(card('profile')) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('scrolls the TOTP card into view for #totp', async () => {
    settingsApi(showForm);
    const scrolled = vi.spyOn(Element.prototype, 'scrollIntoView');
    renderPage(`/ui/settings?flow=${flowId}#totp`);

    await screen.findByTestId('ory/screen/settings/group/totp');
    await waitFor(() => expect(scrolled).toHaveBeenCalledTimes(1));
    expect(scrolled.mock.contexts[0]).toBe(card('totp'));
  });

  it('has a way back to the console', async () => {
    settingsApi(showForm);
    renderPage(`/ui/settings?flow=${flowId}`);

    expect(await screen.findByRole('link', { name: 'Back to console' })).toHaveAttribute('href', 'http://localhost:3000/dashboard');
  });

  describe('leaves the page when the flow cannot be shown', () => {
    it('starts a flow when there is none', () => {
      const assign = mockNavigation();
      renderPage('/ui/settings');
      expect(assign).toHaveBeenCalledWith('/self-service/settings/browser');
    });

    it.each([
      ['no session (401)', () => HttpResponse.json(noSession(), { status: 401 }), 'http://localhost:3000/login'],
      ['aal2 required (403)', () => HttpResponse.json(sessionAal2Required(), { status: 403 }), `${PUB}/self-service/login/browser?aal=aal2`],
      ['expired (410)', () => HttpResponse.json(flowGone(), { status: 410 }), '/self-service/settings/browser'],
      ['unknown (404)', () => HttpResponse.json(flowGone(), { status: 404 }), '/self-service/settings/browser'],
    ])('%s', async (_case, answer, target) => {
      server.use(http.get(`${PUB}/self-service/settings/flows`, answer));
      const assign = mockNavigation();
      renderPage(`/ui/settings?flow=${flowId}`);
      await waitFor(() => expect(assign).toHaveBeenCalledWith(target));
    });

    it('starts over when a submit finds the flow expired', async () => {
      settingsApi(showForm, [() => HttpResponse.json(flowGone('self_service_flow_expired'), { status: 410 })]);
      const assign = mockNavigation();
      const { user } = renderPage(`/ui/settings?flow=${flowId}`);

      await user.type(await passwordField(), 'a brand new secret');
      await user.click(within(card('password')).getByRole('button', { name: 'Save' }));
      await waitFor(() => expect(assign).toHaveBeenCalledWith('/self-service/settings/browser'));
    });
  });
});
