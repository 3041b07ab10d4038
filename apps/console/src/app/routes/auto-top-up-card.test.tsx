import type { Me, Role } from '@meterway/contracts';
import { screen, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeAll, describe, expect, it } from 'vitest';
import { autoTopUpHandlers, buildAutoTopUp, testSetupSession } from '../../testing/auto-top-up-handlers';
import { creditsHandlers } from '../../testing/credits-handlers';
import { buildMe } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';
import { testRuntimeConfig } from '../../testing/runtime-config';

// Issue #22: saving a card for auto top-up with the add-credits card form in setup mode, then back
// to the dashboard once the setup session succeeded.

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

beforeAll(() => Promise.all([import('./app-layout'), import('./dashboard'), import('./auto-top-up-card')]), 30_000);

type Sessions = Me['organizationCheckoutSessions'];

/** /bff/me for `role`, listing whatever `sessions.current` holds at each call. */
function signedIn(role: Role = 'billing', sessions: { current: Sessions } = { current: [] }) {
  const organizations = [{ organizationId: 'org_01', organizationName: 'Analytical Engines', role }];
  return http.get(`${api}/bff/me`, () => HttpResponse.json(buildMe({ role, organizations, organizationCheckoutSessions: sessions.current })));
}

const setupStatus = (status: Sessions[number]['status']): Sessions => [{ checkoutSessionId: testSetupSession.checkoutSessionId, status }];

/** From the dashboard's Save a card to the sandbox's card form in setup mode. */
async function openCardForm(sessions?: { current: Sessions }) {
  server.use(signedIn('billing', sessions), autoTopUpHandlers.createPaymentMethod(), autoTopUpHandlers.sandboxSetup());
  const view = renderRoute('/dashboard');
  await view.user.click(await screen.findByRole('button', { name: 'Save a card' }));
  await screen.findByRole('button', { name: 'Save card' });
  return view;
}

async function fillCard(user: ReturnType<typeof renderRoute>['user'], cardNumber = '4242 4242 4242 4242') {
  await user.type(screen.getByLabelText('Card number'), cardNumber);
  await user.type(screen.getByLabelText('Expiry (MM/YY)'), '12/34');
  await user.type(screen.getByLabelText('CVC'), '123');
}

describe('/auto-top-up/card: the sandbox card form in setup mode', () => {
  it('says it saves a card for auto top-up, with the setup test cards, no amount and a Save card button', async () => {
    await openCardForm();

    expect(screen.getByRole('heading', { name: 'Save a card for auto top-up' })).toBeInTheDocument();
    expect(screen.getByText(/This saves your card for auto top-up\. Nothing is charged now/)).toBeInTheDocument();
    const note = screen.getByRole('note');
    expect(note).toHaveTextContent('4242 4242 4242 4242');
    expect(note).toHaveTextContent('4000 0000 0000 0341');
    expect(note).toHaveTextContent('4000 0027 6000 3184');
    expect(screen.queryByRole('table', { name: 'Order summary' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Complete purchase' })).not.toBeInTheDocument();
  });

  it('saves the card, waits for the session, then shows the card on the dashboard', async () => {
    const sessions = { current: [] as Sessions };
    const confirms: unknown[] = [];
    const { user, router } = await openCardForm(sessions);
    server.use(creditsHandlers.confirmSandbox(confirms));

    await fillCard(user);
    await user.click(screen.getByRole('button', { name: 'Save card' }));

    expect(await screen.findByText('Saving your card... Please wait while we check it.')).toBeInTheDocument();
    expect(router.state.location.search).toBe(`?checkoutSessionId=${testSetupSession.checkoutSessionId}`);
    expect(confirms).toEqual([{ clientSecret: testSetupSession.clientSecret, cardNumber: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' }]);

    server.use(autoTopUpHandlers.get(buildAutoTopUp({ paymentMethod: { brand: 'visa', last4: '4242' } })));
    sessions.current = setupStatus('SUCCEEDED');

    expect(await screen.findByText('Your card was saved for auto top-up')).toBeInTheDocument();
    const card = await screen.findByRole('region', { name: /^Auto top-up/ });
    expect(await within(card).findByText('Card: Visa •••• 4242')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('offers to try again when the card could not be saved', async () => {
    renderStatus(setupStatus('FAILED'));

    expect(await screen.findByText('Your card could not be saved. Please try again.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Save a card' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to dashboard' })).toHaveAttribute('href', '/dashboard');
  });

  it('Cancel goes back to the dashboard', async () => {
    const { user, router } = await openCardForm();

    await user.click(screen.getByRole('button', { name: 'Cancel' }));

    expect(await screen.findByRole('region', { name: /^Auto top-up/ })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('opened without a session, offers to start one', async () => {
    server.use(signedIn());
    renderRoute('/auto-top-up/card');

    expect(await screen.findByRole('button', { name: 'Save a card' })).toBeInTheDocument();
    expect(screen.queryByLabelText('Card number')).not.toBeInTheDocument();
  });

  it('tells a developer that only owners, admins and billing save a card', async () => {
    server.use(signedIn('developer'));
    renderRoute('/auto-top-up/card');

    expect(await screen.findByText('Only owners, admins and billing members save a card for auto top-up.')).toBeInTheDocument();
  });
});

function renderStatus(sessions: Sessions) {
  server.use(signedIn('billing', { current: sessions }));
  return renderRoute(`/auto-top-up/card?checkoutSessionId=${testSetupSession.checkoutSessionId}`);
}
