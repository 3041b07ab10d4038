import settingsShowForm from '@meterway/contracts/fixtures/identity/settings-show-form.json';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../lib/browser-location';
import { secondFactorStep } from '../../testing/auth-handlers';
import { identity } from '../../testing/identity-handlers';
import { paymentConfigQueryKey } from '../../features/credits/api/get-payment-config';
import { creditsHandlers } from '../../testing/credits-handlers';
import { buildMe, meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';
import { testRuntimeConfig } from '../../testing/runtime-config';

// The guard and the shell are real; the screens around them are stand-ins, so these tests say what
// the shell does whatever those screens load (their owners test them).
vi.mock('./public-layout', async () => ({ Component: (await import('react-router')).Outlet }));
vi.mock('./login', () => ({ Component: () => <h1>login screen</h1> }));
vi.mock('./verify-email', () => ({ Component: () => <h1>verify-email screen</h1> }));
vi.mock('./dashboard', () => ({ Component: () => <h1>dashboard screen</h1> }));
vi.mock('./chat-completions', () => ({ Component: () => <h1>chat-completions screen</h1> }));
vi.mock('./admin', () => ({ Component: () => <h1>admin screen</h1> }));

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

// The first render imports Mantine and the route modules; warm them so no test pays that in its timeouts.
beforeAll(async () => {
  await Promise.all([import('./app-layout'), import('./login'), import('./dashboard')]);
});

async function openMenu(user: ReturnType<typeof renderRoute>['user']) {
  await user.click(await screen.findByRole('button', { name: 'Account menu' }));
  return screen.findByRole('menu');
}

describe('the signed-in guard', () => {
  it('sends a visitor without a session (401) to /login', async () => {
    server.use(meHandlers.failure(401));
    const { router } = renderRoute('/dashboard');

    expect(await screen.findByRole('heading', { name: 'login screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
  });

  it('sends the visitor to /login when /bff/me fails (500)', async () => {
    server.use(meHandlers.failure(500));
    const { router } = renderRoute('/chat-completions');

    expect(await screen.findByRole('heading', { name: 'login screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it.each(['/dashboard', '/chat-completions?publishableKeyId=pk_1', '/admin'])(
    "sends a visitor whose second factor is due (identity's 403 passed on by /bff/me) from %s to identity, back to that screen",
    async (href) => {
      const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
      server.use(meHandlers.secondFactorRequired());
      const { router } = renderRoute(href);

      await vi.waitFor(() => expect(assign).toHaveBeenCalledWith(secondFactorStep(href)));
      expect(router.state.location.pathname).not.toBe('/login');
      expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
    },
  );

  it('sends a user without an organisation to /login', async () => {
    server.use(meHandlers.noOrganization());
    const { router } = renderRoute('/dashboard');

    expect(await screen.findByRole('heading', { name: 'login screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('sends a user whose e-mail is not verified (401 EmailNotVerified) to /verify-email', async () => {
    server.use(meHandlers.emailNotVerified('new@example.com'));
    const { router } = renderRoute('/dashboard');

    expect(await screen.findByRole('heading', { name: 'verify-email screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/verify-email');
  });

  it('shows a loader until the user is loaded, then the screen inside the shell', async () => {
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    server.use(
      http.get(`${api}/bff/me`, async () => {
        await answered;
        return HttpResponse.json(buildMe());
      }),
    );
    renderRoute('/dashboard');

    expect(await screen.findByRole('status', { name: 'Loading' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'dashboard screen' })).not.toBeInTheDocument();
    answer();
    expect(await screen.findByRole('heading', { name: 'dashboard screen' })).toBeInTheDocument();
    expect(screen.queryByRole('status', { name: 'Loading' })).not.toBeInTheDocument();
  });
});

describe('test mode', () => {
  it('says on every signed-in screen that payments are not real when the sandbox runs in production', async () => {
    server.use(meHandlers.signedIn(), creditsHandlers.paymentConfig({ paymentProvider: 'sandbox', testModeEverywhere: true }));
    renderRoute('/chat-completions');
    expect(await screen.findByRole('note', { name: 'Test mode' })).toHaveTextContent(
      'Test mode: payments run in the sandbox, which accepts test cards and charges no real money.',
    );
  });

  it('says nothing of it in development, where the sandbox is the default, or with Stripe', async () => {
    for (const config of [{ paymentProvider: 'sandbox' as const }, { paymentProvider: 'stripe' as const, stripePublishableKey: 'pk_test_x' }]) {
      server.use(meHandlers.signedIn(), creditsHandlers.paymentConfig(config));
      const { unmount, queryClient } = renderRoute('/dashboard');
      expect(await screen.findByRole('heading', { name: 'dashboard screen' })).toBeInTheDocument();
      // The screen has the config the banner decides from.
      await waitFor(() => expect(queryClient.getQueryData(paymentConfigQueryKey)).toEqual(config));
      expect(screen.queryByRole('note', { name: 'Test mode' })).not.toBeInTheDocument();
      unmount();
    }
  });
});

describe('the top bar', () => {
  it("shows the user's e-mail and organisation name", async () => {
    server.use(meHandlers.signedIn({ email: 'grace@navy.example', organizationName: 'Harvard Mark I' }));
    renderRoute('/dashboard');

    const banner = await screen.findByRole('banner');
    expect(within(banner).getByText('grace@navy.example')).toBeInTheDocument();
    expect(within(banner).getByText('Harvard Mark I')).toBeInTheDocument();
  });

  it('links the logo to the dashboard', async () => {
    server.use(meHandlers.signedIn());
    const { user, router } = renderRoute('/chat-completions');

    await user.click(await screen.findByRole('link', { name: 'Meterway dashboard' }));

    expect(await screen.findByRole('heading', { name: 'dashboard screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('marks Chat completions as the current page only on /chat-completions', async () => {
    server.use(meHandlers.signedIn());
    const { user } = renderRoute('/dashboard');

    const link = await screen.findByRole('link', { name: 'Chat completions' });
    expect(link).toHaveAttribute('href', '/chat-completions');
    expect(link).not.toHaveAttribute('aria-current');

    await user.click(link);

    expect(await screen.findByRole('heading', { name: 'chat-completions screen' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Chat completions' })).toHaveAttribute('aria-current', 'page');
  });

  it('opens the docs in a new tab', async () => {
    server.use(meHandlers.signedIn());
    renderRoute('/dashboard');

    const docs = await screen.findByRole('link', { name: 'Docs' });
    expect(docs).toHaveAttribute('href', testRuntimeConfig.docsUrl);
    expect(docs).toHaveAttribute('target', '_blank');
    expect(docs).toHaveAttribute('rel', 'noopener noreferrer');
  });
});

describe('the user menu', () => {
  it('has no Admin item for an ordinary user', async () => {
    server.use(
      meHandlers.signedIn({ role: 'developer', organizations: [{ organizationId: 'org_01', organizationName: 'Analytical Engines', role: 'developer' }] }),
    );
    const { user } = renderRoute('/dashboard');

    const menu = await openMenu(user);

    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.getAttribute('aria-label') ?? item.textContent),
    ).toEqual(['Analytical Engines (Developer)', 'New organisation', 'Settings', 'Two-factor authentication', 'Send feedback', 'Log out']);
  });

  it('takes a system administrator to /admin', async () => {
    server.use(meHandlers.admin());
    const { user, router } = renderRoute('/dashboard');

    const menu = await openMenu(user);
    await user.click(within(menu).getByRole('menuitem', { name: 'Admin' }));

    expect(await screen.findByRole('heading', { name: 'admin screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/admin');
  });

  it("Settings opens identity's settings page for a new settings flow", async () => {
    server.use(meHandlers.signedIn(), identity.createSettingsFlow());
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    const { user } = renderRoute('/dashboard');

    await user.click(within(await openMenu(user)).getByRole('menuitem', { name: 'Settings' }));

    await waitFor(() => expect(assign).toHaveBeenCalledWith(`http://localhost:4000/ui/settings?flow=${settingsShowForm.body.id}`));
  });

  it("says 'Failed to create settings flow' when identity cannot create one", async () => {
    server.use(
      meHandlers.signedIn(),
      http.get('http://localhost:4000/self-service/settings/browser', () => HttpResponse.json({}, { status: 500 })),
    );
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { user } = renderRoute('/dashboard');

    await user.click(within(await openMenu(user)).getByRole('menuitem', { name: 'Settings' }));

    expect(await screen.findByText('Failed to create settings flow')).toBeInTheDocument();
    expect(screen.getByText('Wooops!')).toBeInTheDocument();
    expect(assign).not.toHaveBeenCalled();
  });

  it('Two-factor authentication opens the multi-factor part (#totp) of a new settings flow', async () => {
    server.use(meHandlers.signedIn(), identity.createSettingsFlow());
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    const { user } = renderRoute('/dashboard');

    await user.click(within(await openMenu(user)).getByRole('menuitem', { name: 'Two-factor authentication' }));

    await waitFor(() => expect(assign).toHaveBeenCalledWith(`http://localhost:4000/ui/settings?flow=${settingsShowForm.body.id}#totp`));
  });

  it("Two-factor authentication says 'Failed to create settings flow' when identity cannot create one", async () => {
    server.use(
      meHandlers.signedIn(),
      http.get('http://localhost:4000/self-service/settings/browser', () => HttpResponse.json({}, { status: 500 })),
    );
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { user } = renderRoute('/dashboard');

    await user.click(within(await openMenu(user)).getByRole('menuitem', { name: 'Two-factor authentication' }));

    expect(await screen.findByText('Failed to create settings flow')).toBeInTheDocument();
    expect(assign).not.toHaveBeenCalled();
  });

  it('names the user and organisation at the top of the menu, for screens too narrow for the top bar', async () => {
    server.use(meHandlers.signedIn());
    const { user } = renderRoute('/dashboard');

    const identityLabel = within(await openMenu(user)).getByTestId('menu-identity');

    expect(identityLabel).toHaveTextContent(buildMe().email);
    expect(identityLabel).toHaveTextContent(buildMe().organizationName);
  });

  it('Log out ends the identity session and lands on /login', async () => {
    const calls: string[] = [];
    const record = ({ request }: { request: Request }) => calls.push(new URL(request.url).pathname);
    server.events.on('request:start', record);
    server.use(meHandlers.signedIn(), identity.createLogoutFlow(), identity.submitLogout());
    const { user, router } = renderRoute('/dashboard');

    await user.click(within(await openMenu(user)).getByRole('menuitem', { name: 'Log out' }));

    expect(await screen.findByRole('heading', { name: 'login screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(calls).toEqual(expect.arrayContaining(['/self-service/logout/browser', '/self-service/logout']));
    server.events.removeListener('request:start', record);
  });

  it('stays signed in and shows the error when logging out fails', async () => {
    server.use(meHandlers.signedIn(), identity.createLogoutFlow({ status: 500, body: {} }));
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { user, router } = renderRoute('/dashboard');

    await user.click(within(await openMenu(user)).getByRole('menuitem', { name: 'Log out' }));

    expect(await screen.findByText('ory.createBrowserLogoutFlow failed')).toBeInTheDocument();
    expect(screen.getByText('Wooops!')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });
});

describe('Send feedback', () => {
  it('posts the type and description and says Success!', async () => {
    const bodies: unknown[] = [];
    server.use(
      meHandlers.signedIn(),
      http.post(`${api}/bff/feedback`, async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json({ id: 'fb_1' }, { status: 201 });
      }),
    );
    const { user } = renderRoute('/dashboard');

    await user.click(within(await openMenu(user)).getByRole('menuitem', { name: 'Send feedback' }));
    const dialog = await screen.findByRole('dialog', { name: 'Send feedback' });
    await user.click(within(dialog).getByRole('combobox', { name: 'Type' }));
    await user.click(screen.getByRole('option', { name: 'Feature request' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Description' }), '  Dark mode, please.  ');
    await user.click(within(dialog).getByRole('button', { name: 'Send feedback' }));

    expect(await screen.findByText('Success!')).toBeInTheDocument();
    expect(bodies).toEqual([{ type: 'feature_request', description: 'Dark mode, please.' }]);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Send feedback' })).not.toBeInTheDocument());
  });

  it("shows 'Wooops!' and keeps the modal open when sending fails", async () => {
    server.use(
      meHandlers.signedIn(),
      http.post(`${api}/bff/feedback`, () => HttpResponse.json({}, { status: 500 })),
    );
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { user } = renderRoute('/dashboard');

    await user.click(within(await openMenu(user)).getByRole('menuitem', { name: 'Send feedback' }));
    const dialog = await screen.findByRole('dialog', { name: 'Send feedback' });
    await user.click(within(dialog).getByRole('combobox', { name: 'Type' }));
    await user.click(screen.getByRole('option', { name: 'Bug report' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Description' }), 'The chart is empty.');
    await user.click(within(dialog).getByRole('button', { name: 'Send feedback' }));

    expect(await screen.findByText('Wooops!')).toBeInTheDocument();
    expect(screen.getByText('Failed to send feedback')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Send feedback' })).toBeInTheDocument();
  });
});
