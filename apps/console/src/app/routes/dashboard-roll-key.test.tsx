import { screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatDateTime } from '../../lib/format';
import { buildPublishableKey, keysHandlers, type RecordedRequest } from '../../testing/keys-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';

// The first render imports Mantine and the route modules; warm them so no test pays that in its timeouts.
beforeAll(async () => {
  await Promise.all([import('./app-layout'), import('./dashboard')]);
});

const webApp = buildPublishableKey();
const newValue = 'pk_live_N3wV4lu3N3wV4lu3N3wV4lu3N3wV4lu3';
const until = '2031-03-10T15:15:00.000Z';
const rolled = buildPublishableKey({ value: newValue, previousValueExpiresAt: until });

function renderDashboard(keys: Parameters<typeof keysHandlers.list>[0] = [webApp]) {
  server.use(meHandlers.signedIn(), keysHandlers.list(keys), keysHandlers.models(), keysHandlers.blocks());
  return renderRoute('/dashboard');
}

const rowOf = async (name: string) => (await screen.findByRole('button', { name: `Edit key ${name}` })).closest('tr') as HTMLElement;
const toast = (title: 'Wooops!') => screen.findByText(title).then((element) => element.closest('.mantine-Notification-root') as HTMLElement);

async function openRoll(user: ReturnType<typeof renderRoute>['user']) {
  await user.click(within(await rowOf('Web app')).getByText('$10 / month'));
  const edit = within(await screen.findByRole('dialog', { name: 'Edit publishable key' }));
  await user.click(edit.getByRole('button', { name: 'Roll key' }));
  return within(await screen.findByRole('dialog', { name: 'Roll publishable key' }));
}

describe('/dashboard: rolling a key', { timeout: 20_000 }, () => {
  it('explains what happens and offers the overlap; Cancel goes back to the key', async () => {
    const { user } = renderDashboard();
    const dialog = await openRoll(user);

    expect(dialog.getByText(/Rolling issues a new value for Web app\. Its name, budget, allowed domains and spend stay/)).toBeInTheDocument();
    expect(dialog.getByText("If an earlier roll's old value still works, it stops at once.")).toBeInTheDocument();
    const overlap = dialog.getByRole('radiogroup', { name: 'Old value keeps working' });
    expect(within(overlap).getAllByRole('radio')).toHaveLength(5);
    for (const choice of ['Immediately', '1 hour', '6 hours', '12 hours', '24 hours'])
      expect(within(overlap).getByRole('radio', { name: choice })).toBeInTheDocument();
    expect(within(overlap).getByRole('radio', { name: '1 hour' })).toBeChecked();

    await user.click(dialog.getByRole('button', { name: 'Cancel' }));

    expect(await screen.findByRole('dialog', { name: 'Edit publishable key' })).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Roll publishable key' })).not.toBeInTheDocument();
  });

  it('rolls with the chosen overlap, shows the new value to copy and until when the old one works, then the table says so', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.roll(rolled, { requests }));
    const { user } = renderDashboard([[webApp], [rolled]]);
    const dialog = await openRoll(user);

    await user.click(dialog.getByRole('radio', { name: '6 hours' }));
    await user.click(dialog.getByRole('button', { name: 'Roll key' }));

    expect(await dialog.findByLabelText('Publishable key')).toHaveValue(newValue);
    expect(requests).toEqual([{ id: webApp.id, body: { overlapHours: 6 } }]);
    expect(dialog.getByText(`The new value of Web app is ready. The old value keeps working until ${formatDateTime(until)}, then stops.`)).toBeInTheDocument();
    await user.click(dialog.getByRole('button', { name: 'Copy publishable key' }));
    expect(await navigator.clipboard.readText()).toBe(newValue);

    await user.click(dialog.getByRole('button', { name: 'Done' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const row = within(await rowOf('Web app'));
    expect(await row.findByText('pk_live_N3wV4lu3N3wV...')).toBeInTheDocument();
    expect(row.getByText(`Previous value works until ${formatDateTime(until)}`)).toBeInTheDocument();
  });

  it('rolling immediately says the old value has stopped', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.roll(buildPublishableKey({ value: newValue }), { requests }));
    const { user } = renderDashboard();
    const dialog = await openRoll(user);

    await user.click(dialog.getByRole('radio', { name: 'Immediately' }));
    await user.click(dialog.getByRole('button', { name: 'Roll key' }));

    expect(await dialog.findByText('The new value of Web app is ready. The old value has stopped working.')).toBeInTheDocument();
    expect(requests).toEqual([{ id: webApp.id, body: { overlapHours: 0 } }]);
  });

  it('shows no hint for a key without a running overlap', async () => {
    renderDashboard();

    const row = within(await rowOf('Web app'));
    expect(row.queryByText(/Previous value works until/)).not.toBeInTheDocument();
  });

  it("shows 'Failed to roll publishable key' in a 'Wooops!' toast and stays on the choice", async () => {
    server.use(keysHandlers.roll(rolled, { failure: 500 }));
    const { user } = renderDashboard();
    const dialog = await openRoll(user);

    await user.click(dialog.getByRole('button', { name: 'Roll key' }));

    expect(within(await toast('Wooops!')).getByText('Failed to roll publishable key')).toBeInTheDocument();
    expect(dialog.queryByLabelText('Publishable key')).not.toBeInTheDocument();
    expect(dialog.getByRole('button', { name: 'Roll key' })).toBeEnabled();
  });
});
