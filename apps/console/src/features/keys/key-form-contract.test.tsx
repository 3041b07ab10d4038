import { publishableKeyInputSchema } from '@meterway/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { buildPublishableKey, keysHandlers, type RecordedRequest } from '../../testing/keys-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';
import { keyFormSchema, newKeyFormValues } from './key-form-schema';

// The key form judges with the contract's schema: what the api would refuse, the form refuses first,
// with the api's message. These are the two cases where the form once had rules of its own, and the
// response cache's messages (issue #24).

type User = ReturnType<typeof renderRoute>['user'];

function renderDashboard() {
  server.use(meHandlers.signedIn(), keysHandlers.list([buildPublishableKey()]), keysHandlers.models(), keysHandlers.blocks());
  return renderRoute('/dashboard');
}

async function openCreate(user: User) {
  await user.click(await screen.findByRole('button', { name: 'New publishable key' }));
  return within(await screen.findByRole('dialog', { name: 'New publishable key' }));
}

/** The api's answer to the same fields, by the contract: its first message for `field`. */
function contractMessage(body: { name: string; allowedOrigins: string[] }, field: 'name' | 'allowedOrigins') {
  const result = publishableKeyInputSchema.safeParse({ budget: 10, ...body });
  return result.error?.issues.find((issue) => issue.path[0] === field)?.message;
}

describe('/dashboard: the key form agrees with the api', () => {
  it('refuses a name shorter than 3 after trimming with the contract message, and sends one of 3', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.create(buildPublishableKey({ name: 'abc' }), { requests }));
    const { user } = renderDashboard();
    const dialog = await openCreate(user);

    await user.type(dialog.getByLabelText('Name'), ' ab ');
    await user.click(dialog.getByRole('button', { name: 'Create key' }));

    expect(contractMessage({ name: ' ab ', allowedOrigins: [] }, 'name')).toBe('Minimum length is 3');
    expect(dialog.getByLabelText('Name')).toHaveAccessibleDescription('Minimum length is 3');
    expect(requests).toEqual([]);

    await user.clear(dialog.getByLabelText('Name'));
    await user.type(dialog.getByLabelText('Name'), 'abc');
    await user.click(dialog.getByRole('button', { name: 'Create key' }));

    expect(contractMessage({ name: 'abc', allowedOrigins: [] }, 'name')).toBeUndefined();
    expect(await dialog.findByLabelText('Publishable key')).toBeInTheDocument();
    expect((requests[0]?.body as { name: string }).name).toBe('abc');
  });

  it('refuses an origin with a path with the contract message and marks its row', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.create(buildPublishableKey({ name: 'Checkout' }), { requests }));
    const { user } = renderDashboard();
    const dialog = await openCreate(user);
    await user.type(dialog.getByLabelText('Name'), 'Checkout');
    await user.click(dialog.getByRole('button', { name: 'Add domain' }));
    await user.type(dialog.getByLabelText('Allowed domain 2'), 'https://shop.example.com/app');

    await user.click(dialog.getByRole('button', { name: 'Create key' }));

    const message = contractMessage({ name: 'Checkout', allowedOrigins: ['localhost', 'https://shop.example.com/app'] }, 'allowedOrigins');
    expect(message).toBe('All items must start with http:// or https://');
    expect(dialog.getByRole('alert')).toHaveTextContent(message as string);
    expect(dialog.getByLabelText('Allowed domain 2')).toBeInvalid();
    expect(dialog.getByLabelText('Allowed domain 1')).toBeValid();
    expect(requests).toEqual([]);
  });

  it("judges a response cache time by the contract's rules, with its messages", () => {
    // The field takes whole numbers only; the schema still refuses a fraction, as the api would.
    const messageFor = (responseCacheSeconds: number | string) =>
      keyFormSchema.safeParse({ ...newKeyFormValues(), name: 'Checkout', responseCacheSeconds }).error?.issues.map((issue) => issue.message);

    expect(messageFor(1.5)).toEqual(['Enter a whole number of seconds, or leave it empty for no cache']);
    expect(messageFor(0)).toEqual(['Minimum is 1']);
    expect(messageFor('abc')).toEqual(['Enter a number of seconds, or leave it empty for no cache']);
    expect(messageFor('')).toBeUndefined();
    expect(messageFor(86_400)).toBeUndefined();
  });
});
