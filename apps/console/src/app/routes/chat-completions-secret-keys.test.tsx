import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildPublishableKey, keysHandlers } from '../../testing/keys-handlers';
import { buildChatCompletion, listsHandlers, pageOf } from '../../testing/lists-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';
import { testRuntimeConfig } from '../../testing/runtime-config';
import { buildSecretKey, secretKeysHandlers } from '../../testing/secret-keys-handlers';
import { buildUsageDaily, usageHandlers } from '../../testing/usage-handlers';

// Issue #23: the chat completions page filters by a publishable or a secret key.

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

beforeAll(() => Promise.all([import('./app-layout'), import('./chat-completions')]), 30_000);

const web = buildPublishableKey({ id: '6f1d2c3b-4a59-4e68-8d7c-1b2a3c4d5e6f', name: 'Web app' });
const backend = buildSecretKey({ id: '2e4f6a8b-0c1d-4e3f-9a5b-7c9d1e3f5a7b', name: 'Backend' });
afterEach(() => {
  Reflect.deleteProperty(URL, 'createObjectURL');
  Reflect.deleteProperty(URL, 'revokeObjectURL');
});

const keySelect = () => screen.getByRole('combobox', { name: 'Key' });

/** The page with one key of each kind, recording the list's and the chart's queries. */
function renderPage(path = '/chat-completions') {
  const tableQueries: URLSearchParams[] = [];
  const usageQueries: URLSearchParams[] = [];
  server.use(
    meHandlers.signedIn(),
    keysHandlers.list([web]),
    secretKeysHandlers.list([backend]),
    listsHandlers.chatCompletions((query) => (tableQueries.push(query), pageOf([buildChatCompletion({ publishableKeyId: null, secretKeyId: backend.id })]))),
    usageHandlers.daily((query) => (usageQueries.push(query), buildUsageDaily())),
  );
  return { ...renderRoute(path), tableQueries, usageQueries };
}

describe('/chat-completions by secret key', () => {
  it('lists both kinds of key, grouped, the secret ones labelled', async () => {
    const { user } = renderPage();

    await user.click(await screen.findByRole('combobox', { name: 'Key' }));
    const listbox = within(await screen.findByRole('listbox'));
    expect(await listbox.findByRole('option', { name: 'Web app' })).toBeInTheDocument();
    expect(listbox.getByRole('option', { name: 'Backend (secret)' })).toBeInTheDocument();
    expect(listbox.getByText('Publishable keys')).toBeInTheDocument();
    expect(listbox.getByText('Secret keys')).toBeInTheDocument();
  });

  it("choosing a secret key puts secretKeyId in the URL, the list request and the daily chart's", async () => {
    const { user, router, tableQueries, usageQueries } = renderPage(`/chat-completions?publishableKeyId=${web.id}&nextPageToken=tok-2&page=2`);

    await waitFor(() => expect(keySelect()).toHaveValue('Web app'));
    await user.click(keySelect());
    await user.click(await screen.findByRole('option', { name: 'Backend (secret)' }));

    const search = new URLSearchParams(router.state.location.search);
    expect(search.get('secretKeyId')).toBe(backend.id);
    expect(search.has('publishableKeyId')).toBe(false);
    expect(search.has('nextPageToken')).toBe(false);
    await waitFor(() => expect(tableQueries.at(-1)!.get('secretKeyId')).toBe(backend.id));
    expect(tableQueries.at(-1)!.has('publishableKeyId')).toBe(false);
    await waitFor(() => expect(usageQueries.at(-1)?.get('secretKeyId')).toBe(backend.id));
    expect(usageQueries.at(-1)!.has('publishableKeyId')).toBe(false);
    expect(screen.getByRole('heading', { name: 'Daily spend, last 30 days (UTC)' })).toBeInTheDocument();
  });

  it('opens with the secret key the URL names, and exports its calls only', async () => {
    // jsdom has no object URLs; the saved file is not what this test is about.
    Object.assign(URL, { createObjectURL: () => 'blob:export', revokeObjectURL: () => {} });
    const exports: URLSearchParams[] = [];
    server.use(
      http.get(`${api}/bff/chat-completions/export`, ({ request }) => {
        exports.push(new URL(request.url).searchParams);
        return new HttpResponse('ID\n', { headers: { 'Content-Type': 'text/csv', 'X-Total-Count': '0' } });
      }),
    );
    const { user, usageQueries } = renderPage(`/chat-completions?secretKeyId=${backend.id}`);

    await waitFor(() => expect(keySelect()).toHaveValue('Backend (secret)'));
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));

    await waitFor(() => expect(exports).toHaveLength(1));
    expect(Object.fromEntries(exports[0]!)).toEqual({ secretKeyId: backend.id, asc: 'false' });
    // The chart is that key's too.
    await waitFor(() => expect(usageQueries.map((query) => query.get('secretKeyId'))).toEqual([backend.id]));
  });

  it('back to All keys drops the filter', async () => {
    const { user, router, tableQueries } = renderPage(`/chat-completions?secretKeyId=${backend.id}`);

    await waitFor(() => expect(keySelect()).toHaveValue('Backend (secret)'));
    await user.click(keySelect());
    await user.click(await screen.findByRole('option', { name: 'All keys' }));

    expect(router.state.location.search).toBe('');
    await waitFor(() => expect(tableQueries.at(-1)!.has('secretKeyId')).toBe(false));
    expect(await screen.findByRole('heading', { name: 'Daily spend, last 30 days (UTC)' })).toBeInTheDocument();
  });
});
