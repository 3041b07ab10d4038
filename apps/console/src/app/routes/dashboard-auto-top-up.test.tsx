import type { Role } from '@meterway/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../lib/logger';
import { autoTopUpHandlers, buildAutoTopUp, testSetupSession } from '../../testing/auto-top-up-handlers';
import { problem } from '../../testing/credits-handlers';
import { buildPublishableKey, keysHandlers, type RecordedRequest } from '../../testing/keys-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';

// Issue #22: the dashboard's auto top-up card, its edit form and the way to the card form.

beforeAll(() => Promise.all([import('./app-layout'), import('./dashboard'), import('./auto-top-up-card')]), 30_000);

const visa = { brand: 'visa', last4: '4242' };

/** The dashboard for `role` (billing by default: it manages credit and sees no keys). */
function renderDashboard(settings = buildAutoTopUp(), role: Role = 'billing') {
  server.use(
    meHandlers.signedIn({ role, organizations: [{ organizationId: 'org_01', organizationName: 'Analytical Engines', role }] }),
    autoTopUpHandlers.get(settings),
    keysHandlers.list([buildPublishableKey()]),
    keysHandlers.models(),
    keysHandlers.blocks(),
  );
  return renderRoute('/dashboard');
}

const card = async () => (await screen.findByRole('region', { name: /^Auto top-up/ })) as HTMLElement;

describe('/dashboard: the auto top-up card', () => {
  it('shows it off with the defaults and no card', async () => {
    renderDashboard();
    const region = await card();

    expect(await within(region).findByText('Off')).toBeInTheDocument();
    expect(region).toHaveTextContent('When the balance falls below $5, add $20.');
    expect(region).toHaveTextContent('Charged this month: $0.00 of $100.00');
    expect(region).toHaveTextContent('Card: none saved');
    expect(within(region).getByRole('button', { name: 'Save a card' })).toBeInTheDocument();
    expect(within(region).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('shows it on with the saved card and what was charged this month', async () => {
    const amounts = { thresholdAmount: 10, topUpAmount: 25.5, monthlyCapAmount: 200, chargedThisMonthAmount: 51 };
    renderDashboard(buildAutoTopUp({ enabled: true, ...amounts, paymentMethod: visa }));
    const region = await card();

    expect(await within(region).findByText('On')).toBeInTheDocument();
    expect(region).toHaveTextContent('When the balance falls below $10, add $25.50.');
    expect(region).toHaveTextContent('Charged this month: $51.00 of $200.00');
    expect(region).toHaveTextContent('Card: Visa •••• 4242');
    expect(within(region).getByRole('button', { name: 'Replace card' })).toBeInTheDocument();
  });

  it('says in red why auto top-up turned itself off', async () => {
    renderDashboard(buildAutoTopUp({ paymentMethod: visa, disabledReason: 'Your card was declined.' }));

    const alert = await within(await card()).findByRole('alert');
    expect(alert).toHaveTextContent('Auto top-up was turned off: Your card was declined. Update the card or turn it on again.');
  });

  it('says beside ON why no charge is made while the monthly cap holds it back', async () => {
    const heldBackReason =
      "The balance is below $5.00, but another $20.00 would take this month's charges ($20.00) past the monthly cap of $30.00. Raise the cap or add credit.";
    renderDashboard(buildAutoTopUp({ enabled: true, monthlyCapAmount: 30, chargedThisMonthAmount: 20, paymentMethod: visa, heldBackReason }));
    const region = await card();

    await within(region).findByText('Held back');
    const badges = within(region).getAllByText(/^(On|Held back)$/);
    expect(badges.map((badge) => badge.textContent)).toEqual(['On', 'Held back']);
    expect(within(region).getByRole('status')).toHaveTextContent(`No charge is made${heldBackReason}`);
  });

  it('shows no held-back badge while nothing holds a charge back', async () => {
    renderDashboard(buildAutoTopUp({ enabled: true, paymentMethod: visa }));
    const region = await card();
    expect(await within(region).findByText('On')).toBeInTheDocument();
    expect(within(region).queryByText('Held back')).not.toBeInTheDocument();
    expect(within(region).queryByRole('status')).not.toBeInTheDocument();
  });

  it('shows a developer the settings without Edit or Save a card', async () => {
    renderDashboard(buildAutoTopUp({ enabled: true, paymentMethod: visa }), 'developer');
    const region = await card();

    expect(await within(region).findByText('On')).toBeInTheDocument();
    expect(region).toHaveTextContent('Card: Visa •••• 4242');
    expect(within(region).queryByRole('button')).not.toBeInTheDocument();
  });
});

describe('/dashboard: editing auto top-up', () => {
  it('saves the settings and shows them', async () => {
    const requests: RecordedRequest[] = [];
    const current = buildAutoTopUp({ paymentMethod: visa });
    server.use(autoTopUpHandlers.update({ requests, current }));
    const { user } = renderDashboard(current);

    await user.click(await within(await card()).findByRole('button', { name: 'Edit auto top-up' }));
    const dialog = await screen.findByRole('dialog', { name: 'Auto top-up' });
    await user.click(within(dialog).getByRole('switch', { name: /^Turn on auto top-up/ }));
    const threshold = within(dialog).getByLabelText('When the balance falls below');
    await user.clear(threshold);
    await user.type(threshold, '12.5');
    await user.click(within(dialog).getByRole('button', { name: 'Save auto top-up' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(requests).toEqual([{ body: { enabled: true, thresholdAmount: 12.5, topUpAmount: 20, monthlyCapAmount: 100 } }]);
    expect(await screen.findByText('Auto top-up saved')).toBeInTheDocument();
    expect(await card()).toHaveTextContent('When the balance falls below $12.50, add $20.');
    expect(within(await card()).getByText('On')).toBeInTheDocument();
  });

  it("checks the amounts with the contract's messages before sending", async () => {
    // No update handler: a PUT would fail the test as unhandled.
    const { user } = renderDashboard(buildAutoTopUp({ paymentMethod: visa }));

    await user.click(await within(await card()).findByRole('button', { name: 'Edit auto top-up' }));
    const dialog = await screen.findByRole('dialog', { name: 'Auto top-up' });
    const threshold = within(dialog).getByLabelText('When the balance falls below');
    const topUp = within(dialog).getByLabelText('Add this amount');
    const cap = within(dialog).getByLabelText('Monthly cap');
    await user.clear(threshold);
    await user.clear(topUp);
    await user.type(topUp, '101');
    await user.clear(cap);
    await user.type(cap, '1001');
    await user.click(within(dialog).getByRole('button', { name: 'Save auto top-up' }));

    expect(threshold).toHaveAccessibleDescription(/This field is required/);
    expect(topUp).toHaveAccessibleDescription(/Maximum is 100/);
    expect(cap).toHaveAccessibleDescription(/Maximum is 1000/);

    // The contract compares the cap with the top-up once every amount is valid.
    await user.type(threshold, '5');
    await user.clear(topUp);
    await user.type(topUp, '50');
    await user.clear(cap);
    await user.type(cap, '40');
    await user.click(within(dialog).getByRole('button', { name: 'Save auto top-up' }));
    expect(cap).toHaveAccessibleDescription(/The monthly cap must be at least the top-up amount/);
  });

  it('cannot be turned on without a saved card, and says why', async () => {
    const { user } = renderDashboard();

    await user.click(await within(await card()).findByRole('button', { name: 'Edit auto top-up' }));
    const dialog = await screen.findByRole('dialog', { name: 'Auto top-up' });
    const toggle = within(dialog).getByRole('switch', { name: /^Turn on auto top-up/ });

    expect(toggle).toBeDisabled();
    expect(toggle).toHaveAccessibleDescription('Save a card first: auto top-up charges a saved card.');
  });

  it("shows the api's refusal in the form", async () => {
    vi.spyOn(logger, 'warn').mockImplementation(() => {});
    const current = buildAutoTopUp({ paymentMethod: visa });
    server.use(autoTopUpHandlers.update({ current, failure: () => problem(409, 'Save a card before turning auto top-up on.', { title: 'Conflict' }) }));
    const { user } = renderDashboard(current);

    await user.click(await within(await card()).findByRole('button', { name: 'Edit auto top-up' }));
    const dialog = await screen.findByRole('dialog', { name: 'Auto top-up' });
    await user.click(within(dialog).getByRole('switch', { name: /^Turn on auto top-up/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Save auto top-up' }));

    const alert = await within(dialog).findByRole('alert');
    expect(alert).toHaveTextContent('Conflict');
    expect(alert).toHaveTextContent('Save a card before turning auto top-up on.');
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
  });
});

describe('/dashboard: Save a card', () => {
  it('opens a setup session and goes to the card form in setup mode', async () => {
    const calls = { count: 0 };
    server.use(autoTopUpHandlers.createPaymentMethod(calls), autoTopUpHandlers.sandboxSetup());
    const { user, router } = renderDashboard();

    await user.click(await within(await card()).findByRole('button', { name: 'Save a card' }));

    expect(await screen.findByRole('button', { name: 'Save card' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/auto-top-up/card');
    expect(router.state.location.search).toBe('');
    expect(router.state.location.state).toEqual({ setupSession: testSetupSession });
    expect(calls.count).toBe(1);
  });
});
