import { maxClientRequestsPerMinute, maxKeyBudget } from '@meterway/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { buildPublishableKey, keysHandlers, type RecordedRequest } from '../../testing/keys-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';

// The end-user controls of the key form (issue #18): limits per end user and the sign-in tokens that name end users.

const webApp = buildPublishableKey();
const provider = { issuer: 'https://login.example.com/', audience: 'web-app', jwksUrl: 'https://login.example.com/.well-known/jwks.json' };
const configured = buildPublishableKey({ perEndUserLimits: { requestsPerMinute: 20, spendPerDay: 0.5, spendPerMonth: 5 }, endUserTokens: provider });

function renderDashboard(keys = [webApp]) {
  server.use(meHandlers.signedIn(), keysHandlers.list(keys), keysHandlers.models(), keysHandlers.blocks());
  return renderRoute('/dashboard');
}

type User = ReturnType<typeof renderRoute>['user'];

const toast = (title: 'Wooops!' | 'Success!') => screen.findByText(title).then((element) => element.closest('.mantine-Notification-root') as HTMLElement);
const endUserControlsOf = (request: RecordedRequest | undefined) => {
  const { perEndUserLimits, endUserTokens } = request?.body as Record<string, unknown>;
  return { perEndUserLimits, endUserTokens };
};

async function openCreate(user: User) {
  await user.click(await screen.findByRole('button', { name: 'New publishable key' }));
  return within(await screen.findByRole('dialog', { name: 'New publishable key' }));
}

async function openEdit(user: User) {
  await user.click(await screen.findByRole('button', { name: 'Edit key Web app' }));
  return within(await screen.findByRole('dialog', { name: 'Edit publishable key' }));
}

async function retype(user: User, input: HTMLElement, text: string) {
  await user.clear(input);
  if (text) await user.type(input, text);
}

const tokenSwitch = (form: ReturnType<typeof within>) => form.getByRole('switch', { name: 'Require a sign-in token from each end user' });

describe('/dashboard: end-user controls of a key', () => {
  it('starts a new key with no cap per end user and no tokens, and sends both as such', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.create(buildPublishableKey({ name: 'Checkout' }), { requests }));
    const { user } = renderDashboard();
    const form = await openCreate(user);

    expect(form.getByRole('group', { name: 'Limits per end user' })).toBeInTheDocument();
    expect(form.getByLabelText('Requests per minute per end user')).toHaveValue('');
    expect(form.getByLabelText('Spend per day per end user')).toHaveValue('');
    expect(form.getByLabelText('Spend per month per end user')).toHaveValue('');
    expect(tokenSwitch(form)).not.toBeChecked();
    expect(form.queryByLabelText('Issuer')).not.toBeInTheDocument();
    expect(form.getByText('Meterway-User-Token')).toBeInTheDocument();

    await user.type(form.getByLabelText('Name'), 'Checkout');
    await user.click(form.getByRole('button', { name: 'Create key' }));

    expect(await form.findByLabelText('Publishable key')).toBeInTheDocument();
    expect(endUserControlsOf(requests[0])).toEqual({
      perEndUserLimits: { requestsPerMinute: null, spendPerDay: null, spendPerMonth: null },
      endUserTokens: null,
    });
  });

  it('creates a key with limits per end user and the provider of its sign-in tokens', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.create(buildPublishableKey({ name: 'Checkout' }), { requests }));
    const { user } = renderDashboard();
    const form = await openCreate(user);
    await user.type(form.getByLabelText('Name'), 'Checkout');

    await user.type(form.getByLabelText('Requests per minute per end user'), '10');
    await user.type(form.getByLabelText('Spend per day per end user'), '0.25');
    await user.type(form.getByLabelText('Spend per month per end user'), '3');
    await user.click(tokenSwitch(form));
    await user.type(form.getByLabelText('Issuer'), ` ${provider.issuer} `);
    await user.type(form.getByLabelText('Audience'), provider.audience);
    await user.type(form.getByLabelText('JWKS URL'), provider.jwksUrl);
    await user.click(form.getByRole('button', { name: 'Create key' }));

    expect(await form.findByLabelText('Publishable key')).toBeInTheDocument();
    expect(endUserControlsOf(requests[0])).toEqual({
      perEndUserLimits: { requestsPerMinute: 10, spendPerDay: 0.25, spendPerMonth: 3 },
      endUserTokens: provider,
    });
  });

  it('opens a key with its own end-user controls; clearing them on save sends null', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.update({ requests }));
    const { user } = renderDashboard([configured]);
    const form = await openEdit(user);

    expect(form.getByLabelText('Requests per minute per end user')).toHaveValue('20');
    expect(form.getByLabelText('Spend per day per end user')).toHaveValue('$0.5');
    expect(form.getByLabelText('Spend per month per end user')).toHaveValue('$5');
    expect(tokenSwitch(form)).toBeChecked();
    expect(form.getByLabelText('Issuer')).toHaveValue(provider.issuer);
    expect(form.getByLabelText('Audience')).toHaveValue(provider.audience);
    expect(form.getByLabelText('JWKS URL')).toHaveValue(provider.jwksUrl);

    await retype(user, form.getByLabelText('Requests per minute per end user'), '');
    await retype(user, form.getByLabelText('Spend per day per end user'), '');
    await retype(user, form.getByLabelText('Spend per month per end user'), '');
    await user.click(tokenSwitch(form));
    expect(form.queryByLabelText('Issuer')).not.toBeInTheDocument();
    await user.click(form.getByRole('button', { name: 'Save' }));

    expect(await toast('Success!')).toBeInTheDocument();
    expect(requests.map((request) => request.id)).toEqual([configured.id]);
    expect(endUserControlsOf(requests[0])).toEqual({
      perEndUserLimits: { requestsPerMinute: null, spendPerDay: null, spendPerMonth: null },
      endUserTokens: null,
    });
  });

  it.each([
    ['no requests a minute', 'Requests per minute per end user', '0', 'Minimum is 1'],
    [
      'more requests a minute than the api allows',
      'Requests per minute per end user',
      String(maxClientRequestsPerMinute + 1),
      `Maximum is ${maxClientRequestsPerMinute}`,
    ],
    ['no dollars a day', 'Spend per day per end user', '0', 'Minimum is 0.01'],
    ['more dollars a month than the api allows', 'Spend per month per end user', String(maxKeyBudget + 1), `Maximum is ${maxKeyBudget}`],
  ])("refuses %s with the contract's message", async (_case, label, value, message) => {
    const { user } = renderDashboard();
    const form = await openCreate(user);
    await user.type(form.getByLabelText('Name'), 'Checkout');

    await user.type(form.getByLabelText(label), value);
    await user.click(form.getByRole('button', { name: 'Create key' }));

    // No request is made: an unhandled POST would fail the test.
    expect(form.getByLabelText(label)).toHaveAccessibleDescription(expect.stringContaining(message));
    expect(form.getByRole('button', { name: 'Create key' })).toBeInTheDocument();
  });

  it("refuses missing token settings and a JWKS URL that is not https with the contract's messages", async () => {
    const { user } = renderDashboard();
    const form = await openCreate(user);
    await user.type(form.getByLabelText('Name'), 'Checkout');

    await user.click(tokenSwitch(form));
    await user.type(form.getByLabelText('JWKS URL'), 'http://login.example.com/jwks.json');
    await user.click(form.getByRole('button', { name: 'Create key' }));

    // No request is made: an unhandled POST would fail the test.
    expect(form.getByLabelText('Issuer')).toHaveAccessibleDescription("Enter the issuer (the iss of your sign-in provider's tokens)");
    expect(form.getByLabelText('Audience')).toHaveAccessibleDescription("Enter the audience (the aud of your sign-in provider's tokens)");
    expect(form.getByLabelText('JWKS URL')).toHaveAccessibleDescription("Enter an https URL of the provider's signing keys (JWKS)");
  });

  it("shows a key's caps per end user and whether it requires tokens under its budget", async () => {
    renderDashboard([configured, buildPublishableKey({ id: '22222222-2222-4222-8222-222222222222', name: 'Plain' })]);

    const row = within((await screen.findByRole('button', { name: 'Edit key Web app' })).closest('tr') as HTMLElement);
    expect(row.getByText('20 req/min · $0.50/day · $5.00/month per end user')).toBeInTheDocument();
    expect(row.getByText('Requires end-user tokens')).toBeInTheDocument();
    const plain = within(screen.getByRole('button', { name: 'Edit key Plain' }).closest('tr') as HTMLElement);
    expect(plain.queryByText(/per end user$/)).not.toBeInTheDocument();
    expect(plain.queryByText('Requires end-user tokens')).not.toBeInTheDocument();
  });
});
