import { loadStripe } from '@stripe/stripe-js/pure';
import { configure, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { logger } from '../../lib/logger';
import { creditsHandlers, problem, testCheckoutSession } from '../../testing/credits-handlers';
import { withFakeTimers } from '../../testing/fake-timers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';

// Each step waits on a request or a lazy screen; on a busy machine that can exceed the default 1 s.
configure({ asyncUtilTimeout: 3000 });

// Stripe.js cannot load here (js.stripe.com is unreachable); each Stripe test hands in a fake.
vi.mock('@stripe/stripe-js/pure', () => ({ loadStripe: vi.fn() }));

const messages = {
  inProgress: 'Payment in progress... Please wait while we process your payment.',
  failed: 'Payment failed! Please try again.',
  expired: 'Payment expired! Please try again.',
  succeeded: 'Payment successful! Your credit was successfully refilled.',
};
const notFound = 'We could not find this payment. If you paid, your credit appears on the dashboard once the payment is confirmed.';

const summaryRow = (label: string) => within(screen.getByRole('table', { name: 'Order summary' })).getByRole('row', { name: new RegExp(`^${label}`) });

beforeAll(async () => {
  // The router loads screens lazily; compiling them here keeps that out of the first test's waits.
  await Promise.all([import('./app-layout'), import('./add-credits'), import('../../features/credits/components/stripe-checkout')]);
}, 30_000);

beforeEach(() => {
  vi.mocked(loadStripe).mockReset();
  server.use(meHandlers.signedIn());
});

/** Renders /add-credits, chooses `amount` and continues to the checkout. */
async function startCheckout(amount: string, requests?: unknown[]) {
  const view = renderRoute('/add-credits');
  const input = await screen.findByLabelText('Amount');
  await view.user.clear(input);
  await view.user.type(input, amount);
  server.use(creditsHandlers.createCheckoutSession(requests));
  await view.user.click(screen.getByRole('button', { name: 'Continue' }));
  return view;
}

describe('/add-credits: amount', () => {
  it('starts at the amount step with 10 dollars and a Continue button', async () => {
    renderRoute('/add-credits');

    expect(await screen.findByLabelText('Amount')).toHaveValue('$10');
    expect(screen.getByRole('button', { name: 'Continue' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Add credits' })).toBeInTheDocument();
  });

  it.each([
    ['empty', '', 'This field is required'],
    ['0', '0', 'Minimum is 1'],
    ['101', '101', 'Maximum is 100'],
  ])('refuses an amount of %s with "%s"', async (_case, typed, message) => {
    // No checkout-session handler: a request would fail the test as unhandled.
    const { user } = renderRoute('/add-credits');
    const input = await screen.findByLabelText('Amount');
    await user.clear(input);
    if (typed) await user.type(input, typed);
    await user.click(screen.getByRole('button', { name: 'Continue' }));

    expect(input).toHaveAccessibleDescription(message);
    expect(screen.queryByRole('button', { name: 'Complete purchase' })).not.toBeInTheDocument();
  });

  it('opens a checkout session for the chosen amount in dollars', async () => {
    server.use(creditsHandlers.paymentConfig(), creditsHandlers.sandboxCheckout({ credit: 25, tax: 2.5, total: 27.5 }));
    const requests: unknown[] = [];

    await startCheckout('25', requests);

    expect(await screen.findByRole('button', { name: 'Complete purchase' })).toBeInTheDocument();
    expect(requests).toEqual([{ amount: 25 }]);
  });
});

describe('/add-credits: sandbox checkout', () => {
  beforeEach(() => {
    server.use(creditsHandlers.paymentConfig(), creditsHandlers.sandboxCheckout({ credit: 25, tax: 2.5, total: 27.5 }));
  });

  it('shows the summary, a labelled card form marked test mode, and never loads Stripe', async () => {
    await startCheckout('25');

    await waitFor(() => expect(summaryRow('Usage credit')).toHaveTextContent('$25.00'));
    expect(summaryRow('Estimated tax')).toHaveTextContent('$2.50');
    expect(summaryRow('Total')).toHaveTextContent('$27.50');
    expect(screen.getByText('Test mode — no real money is charged')).toBeInTheDocument();
    expect(screen.getByText(/4242 4242 4242 4242/)).toBeInTheDocument();
    expect(screen.getByText(/4000 0000 0000 0002/)).toBeInTheDocument();
    for (const label of ['Card number', 'Expiry (MM/YY)', 'CVC', 'Postal code (optional)']) expect(screen.getByLabelText(label)).toBeInTheDocument();
    expect(loadStripe).not.toHaveBeenCalled();
    expect(screen.queryByText(/what your organisation owes/)).not.toBeInTheDocument();
  });

  it('says before the purchase that the credit pays what the organisation owes first', async () => {
    server.use(meHandlers.signedIn({ owedAmount: 5.51 }));
    await startCheckout('25');

    await waitFor(() => expect(summaryRow('Usage credit')).toHaveTextContent('$25.00'));
    expect(screen.getByText('The first $5.51 of this credit pays what your organisation owes; the rest is added to your balance.')).toBeInTheDocument();
  });

  it('sends the card with the client secret, then shows the status of that session', async () => {
    const confirms: unknown[] = [];
    server.use(creditsHandlers.confirmSandbox(confirms));
    const { user, router } = await startCheckout('25');

    await user.type(await screen.findByLabelText('Card number'), '4242 4242 4242 4242');
    await user.type(screen.getByLabelText('Expiry (MM/YY)'), '12/34');
    await user.type(screen.getByLabelText('CVC'), '123');
    await user.type(screen.getByLabelText('Postal code (optional)'), '10115');
    await user.click(screen.getByRole('button', { name: 'Complete purchase' }));

    expect(await screen.findByText(messages.inProgress)).toBeInTheDocument();
    expect(confirms).toEqual([
      { clientSecret: testCheckoutSession.clientSecret, cardNumber: '4242 4242 4242 4242', expiry: '12/34', cvc: '123', postalCode: '10115' },
    ]);
    expect(router.state.location.search).toBe(`?checkoutSessionId=${testCheckoutSession.checkoutSessionId}`);
  });

  it('checks the card before sending it', async () => {
    const { user } = await startCheckout('25');

    await user.click(await screen.findByRole('button', { name: 'Complete purchase' }));

    expect(screen.getByLabelText('Card number')).toHaveAccessibleDescription('Your card number is incorrect.');
    expect(screen.getByLabelText('Expiry (MM/YY)')).toHaveAccessibleDescription("Your card's expiration date is incomplete.");
    expect(screen.getByLabelText('CVC')).toHaveAccessibleDescription("Your card's security code is incomplete.");
  });

  it.each([
    [
      "the provider's message",
      () => problem(400, 'This is a sandbox: no real card is charged. Use a test card such as 4242 4242 4242 4242.'),
      'This is a sandbox: no real card is charged. Use a test card such as 4242 4242 4242 4242.',
    ],
    ['"An error occurred" when it gives none', () => new Response('upstream down', { status: 502 }), 'An error occurred'],
  ])('shows a refused confirm inline with %s and stays on the checkout', async (_case, failure, text) => {
    server.use(creditsHandlers.confirmSandbox(undefined, failure));
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {});
    const { user } = await startCheckout('25');

    await user.type(await screen.findByLabelText('Card number'), '4111 1111 1111 1111');
    await user.type(screen.getByLabelText('Expiry (MM/YY)'), '12/34');
    await user.type(screen.getByLabelText('CVC'), '123');
    await user.click(screen.getByRole('button', { name: 'Complete purchase' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(text);
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
    expect(warn).toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Complete purchase' })).toBeInTheDocument();
  });

  it('after a declined card, empties and focuses the card number, keeps the rest, and pays with another card in the same session', async () => {
    const declined = 'Your card was declined.';
    const failures = [
      () => problem(402, declined, { code: 'PaymentRequired', declineCode: 'generic_decline', errors: [{ field: 'cardNumber', message: declined }] }),
    ];
    const confirms: unknown[] = [];
    server.use(creditsHandlers.confirmSandbox(confirms, () => failures.shift()?.()));
    vi.spyOn(logger, 'warn').mockImplementation(() => {});
    const { user, router } = await startCheckout('25');

    const cardNumber = await screen.findByLabelText('Card number');
    await user.type(cardNumber, '4000 0000 0000 0002');
    await user.type(screen.getByLabelText('Expiry (MM/YY)'), '12/34');
    await user.type(screen.getByLabelText('CVC'), '123');
    await user.click(screen.getByRole('button', { name: 'Complete purchase' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(declined);
    expect(cardNumber).toHaveValue('');
    expect(cardNumber).toHaveFocus();
    expect(screen.getByLabelText('Expiry (MM/YY)')).toHaveValue('12/34');
    expect(screen.getByLabelText('CVC')).toHaveValue('123');

    // Pressing again clears the old reason, even when the form itself stops the attempt.
    await user.click(screen.getByRole('button', { name: 'Complete purchase' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(cardNumber).toHaveAccessibleDescription('Your card number is incorrect.');

    await user.type(cardNumber, '4242 4242 4242 4242');
    await user.click(screen.getByRole('button', { name: 'Complete purchase' }));

    expect(await screen.findByText(messages.inProgress)).toBeInTheDocument();
    expect(router.state.location.search).toBe(`?checkoutSessionId=${testCheckoutSession.checkoutSessionId}`);
    const card = { clientSecret: testCheckoutSession.clientSecret, expiry: '12/34', cvc: '123' };
    expect(confirms).toEqual([
      { ...card, cardNumber: '4000 0000 0000 0002' },
      { ...card, cardNumber: '4242 4242 4242 4242' },
    ]);
  });

  it('goes back to the amount to choose another one', async () => {
    const { user } = await startCheckout('25');

    await user.click(await screen.findByRole('button', { name: 'Change amount' }));

    expect(await screen.findByLabelText('Amount')).toBeInTheDocument();
  });
});

describe('/add-credits?checkoutSessionId: status', () => {
  const statusPath = `/add-credits?checkoutSessionId=${testCheckoutSession.checkoutSessionId}`;
  const sessionWith = (status: 'IN_PROGRESS' | 'SUCCEEDED' | 'FAILED' | 'EXPIRED') => [{ checkoutSessionId: testCheckoutSession.checkoutSessionId, status }];

  it.each([
    ['IN_PROGRESS', messages.inProgress],
    ['FAILED', messages.failed],
    ['EXPIRED', messages.expired],
    ['SUCCEEDED', messages.succeeded],
  ] as const)('goes straight to the status and shows %s as "%s", with Back to dashboard', async (status, message) => {
    server.use(meHandlers.signedIn({ organizationCheckoutSessions: [{ checkoutSessionId: 'cs_other', status: 'SUCCEEDED' }, ...sessionWith(status)] }));
    renderRoute(statusPath);

    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to dashboard' })).toHaveAttribute('href', '/dashboard');
    expect(screen.queryByLabelText('Amount')).not.toBeInTheDocument();
  });

  it('says, once paid, what part of the credit paid what the organisation owed and what reached the balance', async () => {
    server.use(
      meHandlers.signedIn({ organizationCheckoutSessions: sessionWith('SUCCEEDED') }),
      creditsHandlers.checkoutOutcome({ creditAmount: 10, owedPaidAmount: 5.51 }),
    );
    renderRoute(statusPath);

    expect(await screen.findByText('$5.51 of it paid what your organisation owed; $4.49 was added to your balance.')).toBeInTheDocument();
    expect(screen.getByText(messages.succeeded)).toBeInTheDocument();
  });

  it('says when all of the credit paid what the organisation owed', async () => {
    server.use(
      meHandlers.signedIn({ organizationCheckoutSessions: sessionWith('SUCCEEDED') }),
      creditsHandlers.checkoutOutcome({ creditAmount: 5, owedPaidAmount: 5 }),
    );
    renderRoute(statusPath);

    expect(await screen.findByText('All of it paid what your organisation owed ($5.00); nothing was added to your balance.')).toBeInTheDocument();
  });

  it('says nothing of a debt when the payment paid none', async () => {
    const calls = { count: 0 };
    server.use(meHandlers.signedIn({ organizationCheckoutSessions: sessionWith('SUCCEEDED') }), creditsHandlers.checkoutOutcome({}, calls));
    renderRoute(statusPath);

    expect(await screen.findByText(messages.succeeded)).toBeInTheDocument();
    await waitFor(() => expect(calls.count).toBe(1));
    expect(screen.queryByText(/paid what your organisation owed/)).not.toBeInTheDocument();
  });

  it('shows the payment in progress while the session is not known yet', async () => {
    server.use(meHandlers.signedIn({ organizationCheckoutSessions: [{ checkoutSessionId: 'cs_other', status: 'FAILED' }] }));
    renderRoute(statusPath);

    expect(await screen.findByText(messages.inProgress)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to dashboard' })).toBeInTheDocument();
  });

  describe('with fake timers', () => {
    const advance = withFakeTimers();

    it('reads the current user every second while the payment is in progress', async () => {
      const calls = { count: 0 };
      server.use(creditsHandlers.meSequence([sessionWith('IN_PROGRESS')], calls));
      renderRoute(statusPath);

      expect(await screen.findByText(messages.inProgress)).toBeInTheDocument();
      const readsBefore = calls.count;
      await advance(10_000);
      // Ten seconds, ten reads; one more for real time that passed meanwhile.
      expect(calls.count - readsBefore).toBeGreaterThanOrEqual(10);
      expect(calls.count - readsBefore).toBeLessThanOrEqual(11);
    });

    it('stops reading once the payment has succeeded', async () => {
      const calls = { count: 0 };
      server.use(creditsHandlers.meSequence([[], sessionWith('IN_PROGRESS'), sessionWith('SUCCEEDED')], calls));
      renderRoute(statusPath);

      expect(await screen.findByText(messages.inProgress)).toBeInTheDocument();
      await advance(2000);
      expect(await screen.findByText(messages.succeeded)).toBeInTheDocument();

      const settledAt = calls.count;
      await advance(5000);
      expect(calls.count).toBe(settledAt);
    });

    it('says after a minute that a session it cannot find may not be this account’s, and keeps waiting for it', async () => {
      const calls = { count: 0 };
      server.use(creditsHandlers.meSequence([[{ checkoutSessionId: 'cs_other', status: 'SUCCEEDED' }]], calls));
      renderRoute('/add-credits?checkoutSessionId=cs_someone_elses');

      expect(await screen.findByText(messages.inProgress)).toBeInTheDocument();
      // Short of a minute, with room for the real time the test itself takes.
      await advance(55_000);
      expect(screen.queryByText(notFound)).not.toBeInTheDocument();
      await advance(5_000);
      expect(screen.getByRole('status')).toHaveTextContent(notFound);
      expect(screen.getByText(messages.inProgress)).toBeInTheDocument();
      expect(screen.getByRole('link', { name: 'Back to dashboard' })).toHaveAttribute('href', '/dashboard');

      // Still asking: a payment confirmed late shows its outcome, and the line goes.
      server.use(meHandlers.signedIn({ organizationCheckoutSessions: [{ checkoutSessionId: 'cs_someone_elses', status: 'SUCCEEDED' }] }));
      await advance(1000);
      expect(await screen.findByText(messages.succeeded)).toBeInTheDocument();
      expect(screen.queryByText(notFound)).not.toBeInTheDocument();
    });

    it('never says so for a session the current user lists, however long it stays in progress', async () => {
      server.use(meHandlers.signedIn({ organizationCheckoutSessions: sessionWith('IN_PROGRESS') }));
      renderRoute(statusPath);

      expect(await screen.findByText(messages.inProgress)).toBeInTheDocument();
      await advance(120_000);
      expect(screen.getByText(messages.inProgress)).toBeInTheDocument();
      expect(screen.queryByText(notFound)).not.toBeInTheDocument();
    });
  });
});

describe('/add-credits: Stripe checkout', () => {
  const publishableKey = 'pk_test_meterway';
  const amount = (minorUnitsAmount: number) => ({ minorUnitsAmount, amount: `$${(minorUnitsAmount / 100).toFixed(2)}` });

  /** What react-stripe-js calls on a Stripe object: initCheckoutElementsSdk, loadActions, the element factories. */
  function fakeStripe(confirm: (...args: any[]) => Promise<unknown>) {
    const element = () => ({ mount: vi.fn(), destroy: vi.fn(), on: vi.fn(), off: vi.fn(), update: vi.fn() });
    const session = {
      id: testCheckoutSession.checkoutSessionId,
      currency: 'usd',
      minorUnitsAmountDivisor: 100,
      email: 'ada@example.com',
      canConfirm: true,
      status: { type: 'open' },
      tax: { status: 'ready' },
      lastPaymentError: null,
      lineItems: [],
      total: {
        subtotal: amount(2500),
        taxExclusive: amount(213),
        taxInclusive: amount(0),
        discount: amount(0),
        shippingRate: amount(0),
        appliedBalance: amount(0),
        surcharge: amount(0),
        total: amount(2713),
        balanceAppliedToNextInvoice: false,
      },
    };
    const sdk = {
      on: vi.fn(),
      loadActions: vi.fn(async () => ({ type: 'success', actions: { getSession: () => session, confirm } })),
      changeAppearance: vi.fn(),
      loadFonts: vi.fn(),
      createPaymentElement: vi.fn(element),
      createBillingAddressElement: vi.fn(element),
    };
    const stripe = {
      elements: vi.fn(),
      createToken: vi.fn(),
      createPaymentMethod: vi.fn(),
      confirmCardPayment: vi.fn(),
      initCheckoutElementsSdk: vi.fn(() => sdk),
    };
    vi.mocked(loadStripe).mockResolvedValue(stripe as any);
    return { stripe, sdk };
  }

  beforeEach(() => {
    server.use(creditsHandlers.paymentConfig({ paymentProvider: 'stripe', stripePublishableKey: publishableKey }));
  });

  it('mounts Stripe Elements for the session and shows the summary from the checkout totals', async () => {
    const { stripe, sdk } = fakeStripe(vi.fn());

    await startCheckout('25');

    await waitFor(() => expect(summaryRow('Usage credit')).toHaveTextContent('$25.00'));
    expect(summaryRow('Estimated tax')).toHaveTextContent('$2.13');
    expect(summaryRow('Total')).toHaveTextContent('$27.13');
    expect(loadStripe).toHaveBeenCalledWith(publishableKey);
    expect(stripe.initCheckoutElementsSdk).toHaveBeenCalledWith({ clientSecret: testCheckoutSession.clientSecret });
    expect(sdk.createPaymentElement).toHaveBeenCalled();
    expect(sdk.createBillingAddressElement).toHaveBeenCalled();
    expect(screen.queryByText('Test mode — no real money is charged')).not.toBeInTheDocument();
  });

  it('confirms with this screen as the return URL and shows the decline message Stripe gives', async () => {
    const confirm = vi.fn(async () => ({
      type: 'error',
      error: { code: 'paymentFailed', message: 'Your card was declined.', paymentFailed: { declineCode: 'generic_decline' } },
    }));
    fakeStripe(confirm);
    const { user } = await startCheckout('25');

    await user.click(await screen.findByRole('button', { name: 'Complete purchase' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Your card was declined.');
    expect(confirm).toHaveBeenCalledWith({ returnUrl: `http://localhost:3000/add-credits?checkoutSessionId=${testCheckoutSession.checkoutSessionId}` });
  });

  it.each([
    ['an error without a message', () => Promise.resolve({ type: 'error', error: { code: null, message: '' } })],
    ['a thrown error', () => Promise.reject(new Error('IntegrationError: total.total.amount was not displayed'))],
  ])('shows "An error occurred" for %s', async (_case, confirm) => {
    fakeStripe(vi.fn(confirm));
    vi.spyOn(logger, 'warn').mockImplementation(() => {});
    const { user } = await startCheckout('25');

    await user.click(await screen.findByRole('button', { name: 'Complete purchase' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(/^An error occurred$/);
  });
});
