import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { browserLocationChangeRequired, csrfViolation, flowGone, loginFlowExpired } from '../testing/errors';
import aal2 from '../testing/fixtures/login-aal2.json';
import invalidCode from '../testing/fixtures/login-aal2-invalid-code.json';
import loginSuccess from '../testing/fixtures/login-success.json';
import { server } from '../testing/msw-server';
import { mockNavigation, renderPage } from '../testing/render';

const PUB = 'http://localhost:4000';
const csrfOf = (flow: typeof aal2) => flow.ui.nodes.find((node) => node.attributes.name === 'csrf_token')?.attributes.value;

/** Serves the aal2 flow and records every login submit body. */
function loginApi(answers: Array<() => Response>) {
  const bodies: unknown[] = [];
  server.use(
    http.get(`${PUB}/self-service/login/flows`, ({ request }) =>
      new URL(request.url).searchParams.get('id') === aal2.id ? HttpResponse.json(aal2) : HttpResponse.json(flowGone(), { status: 404 }),
    ),
    http.post(`${PUB}/self-service/login`, async ({ request }) => {
      expect(new URL(request.url).searchParams.get('flow')).toBe(aal2.id);
      bodies.push(await request.json());
      const answer = answers.shift();
      if (!answer) throw new Error('unexpected login submit');
      return answer();
    }),
  );
  return bodies;
}

describe('/ui/login', () => {
  it('shows the second factor step from the flow nodes', async () => {
    loginApi([]);
    renderPage(`/ui/login?flow=${aal2.id}`);

    expect(await screen.findByRole('heading', { name: 'Two-factor authentication' })).toBeInTheDocument();
    expect(screen.getByText('Enter the 6-digit code from your authenticator app to finish signing in.')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('Please complete the second authentication challenge.');
    const code = screen.getByLabelText('Authentication code');
    expect(code).toHaveAttribute('autocomplete', 'one-time-code');
    expect(code).toHaveAttribute('inputmode', 'numeric');
    expect(code).toHaveFocus();
    expect(screen.getByRole('button', { name: 'Use Authenticator' })).toHaveAttribute('type', 'submit');
    expect(document.querySelector('input[type="hidden"][name="csrf_token"]')).toHaveValue(csrfOf(aal2));
  });

  it('submits the TOTP code and follows continue_with', async () => {
    const bodies = loginApi([() => HttpResponse.json(loginSuccess)]);
    const assign = mockNavigation();
    const { user } = renderPage(`/ui/login?flow=${aal2.id}`);

    await user.type(await screen.findByLabelText('Authentication code'), '492039');
    await user.click(screen.getByRole('button', { name: 'Use Authenticator' }));

    await waitFor(() => expect(assign).toHaveBeenCalledWith('http://localhost:3000/dashboard'));
    expect(bodies).toEqual([{ csrf_token: csrfOf(aal2), method: 'totp', totp_code: '492039' }]);
  });

  it('submits with Enter too', async () => {
    const bodies = loginApi([() => HttpResponse.json({ ...loginSuccess, continue_with: [] })]);
    const assign = mockNavigation();
    const { user } = renderPage(`/ui/login?flow=${aal2.id}`);

    await user.type(await screen.findByLabelText('Authentication code'), '492039{Enter}');

    // Without a continue_with redirect the console's dashboard is next.
    await waitFor(() => expect(assign).toHaveBeenCalledWith('http://localhost:3000/dashboard'));
    expect(bodies).toEqual([{ csrf_token: csrfOf(aal2), method: 'totp', totp_code: '492039' }]);
  });

  it('re-renders the returned flow on 400', async () => {
    loginApi([() => HttpResponse.json(invalidCode, { status: 400 })]);
    const { user } = renderPage(`/ui/login?flow=${aal2.id}`);

    await user.type(await screen.findByLabelText('Authentication code'), '000000');
    await user.click(screen.getByRole('button', { name: 'Use Authenticator' }));

    expect(await screen.findByText('The provided authentication code is invalid, please try again.')).toBeInTheDocument();
    expect(screen.getByLabelText('Authentication code')).toHaveValue('');
    expect(document.querySelector('input[name="csrf_token"]')).toHaveValue(csrfOf(invalidCode));
  });

  it('follows redirect_browser_to on 422', async () => {
    const to = `${PUB}/self-service/login/browser?aal=aal2`;
    loginApi([() => HttpResponse.json(browserLocationChangeRequired(to), { status: 422 })]);
    const assign = mockNavigation();
    const { user } = renderPage(`/ui/login?flow=${aal2.id}`);

    await user.type(await screen.findByLabelText('Authentication code'), '492039');
    await user.click(screen.getByRole('button', { name: 'Use Authenticator' }));

    await waitFor(() => expect(assign).toHaveBeenCalledWith(to));
  });

  it('starts a new second-factor flow when the submit finds this one expired', async () => {
    loginApi([() => HttpResponse.json(loginFlowExpired('9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a'), { status: 410 })]);
    const assign = mockNavigation();
    const { user } = renderPage(`/ui/login?flow=${aal2.id}`);

    await user.type(await screen.findByLabelText('Authentication code'), '492039');
    await user.click(screen.getByRole('button', { name: 'Use Authenticator' }));

    await waitFor(() => expect(assign).toHaveBeenCalledWith('/self-service/login/browser?aal=aal2'));
  });

  it('signs out through a logout flow', async () => {
    loginApi([]);
    const logoutUrl = `${PUB}/self-service/logout?token=ory_lo_Xr2kq9Vb7Tn4Wm8Lc3Hd6Yf1Gs5Jp0Za`;
    server.use(
      http.get(`${PUB}/self-service/logout/browser`, ({ request }) => {
        expect(new URL(request.url).searchParams.get('return_to')).toBe('http://localhost:3000/login');
        return HttpResponse.json({ logout_token: 'ory_lo_Xr2kq9Vb7Tn4Wm8Lc3Hd6Yf1Gs5Jp0Za', logout_url: logoutUrl });
      }),
    );
    const assign = mockNavigation();
    const { user } = renderPage(`/ui/login?flow=${aal2.id}`);

    await user.click(await screen.findByRole('button', { name: 'Sign out' }));

    await waitFor(() => expect(assign).toHaveBeenCalledWith(logoutUrl));
  });

  describe('leaves the page when the flow cannot be shown', () => {
    it('starts a flow when there is none', () => {
      const assign = mockNavigation();
      renderPage('/ui/login');
      expect(assign).toHaveBeenCalledWith('/self-service/login/browser');
    });

    it.each([
      ['expired (410)', () => HttpResponse.json(flowGone('self_service_flow_expired'), { status: 410 })],
      ['CSRF (403)', () => HttpResponse.json(csrfViolation(), { status: 403 })],
      ['unknown (404)', () => HttpResponse.json(flowGone(), { status: 404 })],
    ])('%s goes to the console login', async (_case, answer) => {
      server.use(http.get(`${PUB}/self-service/login/flows`, answer));
      const assign = mockNavigation();
      renderPage(`/ui/login?flow=${aal2.id}`);
      await waitFor(() => expect(assign).toHaveBeenCalledWith('http://localhost:3000/login'));
    });
  });
});
