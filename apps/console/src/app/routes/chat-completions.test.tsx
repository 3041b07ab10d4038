import type { ChatCompletion } from '@meterway/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { logger } from '../../lib/logger';
import { buildPublishableKey, keysHandlers } from '../../testing/keys-handlers';
import { buildChatCompletion, listsHandlers, type Page, pageOf, problem, refusedPageToken } from '../../testing/lists-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';
import { buildUsageDaily, usageHandlers } from '../../testing/usage-handlers';

const headers = [
  'ID',
  'Created at',
  'Model',
  'End user',
  'Network',
  'Estimated input tokens',
  'Actual input tokens',
  'Estimated input cost',
  'Actual input cost',
  'Output tokens',
  'Output cost',
  'Total cost',
];

const cellTexts = (row: HTMLElement) =>
  within(row)
    .getAllByRole('cell')
    .map((cell) => cell.textContent);

/** The rows of the table, header row excluded. */
const bodyRows = () =>
  within(screen.getByRole('table', { name: 'Chat completions' }))
    .getAllByRole('row')
    .slice(1);

/** Answers by token: the first page, or the page a token names; records every query sent. */
function pagedByToken(pages: Record<string, Page<ChatCompletion>>) {
  const sent: URLSearchParams[] = [];
  const handler = listsHandlers.chatCompletions((query) => {
    sent.push(query);
    return pages[query.get('nextPageToken') ?? query.get('previousPageToken') ?? 'first']!;
  });
  return { handler, sent };
}

// Loads the lazy route modules once, so no test's first render waits on their transform.
beforeAll(() => Promise.all([import('./app-layout'), import('./chat-completions')]), 30_000);

// The page also loads the keys (for the filter) and the usage chart; by default there are none.
beforeEach(() => {
  server.use(keysHandlers.list([]), usageHandlers.daily(buildUsageDaily()));
  // jsdom lays nothing out; the chart draws only inside a box with a size.
  vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue(DOMRect.fromRect({ width: 800, height: 280 }));
});

describe('/chat-completions', () => {
  it('shows every column and a row with its timestamp in 24-hour time, token counts and sub-cent costs', async () => {
    server.use(meHandlers.signedIn(), listsHandlers.chatCompletions(pageOf([buildChatCompletion()])));
    renderRoute('/chat-completions');

    expect(await screen.findByRole('heading', { name: 'Chat completions' })).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Chat completions' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(headers);

    const [id, createdAt, model, endUser, network, ...numbers] = cellTexts(bodyRows()[0]!);
    expect([id, model, endUser, network]).toEqual(['chatcmpl-7f3a9c2e', 'meterway-demo', '—', '—']);
    const created = new Date('2026-03-14T21:05:09.000Z');
    expect(createdAt).toContain(`${String(created.getHours()).padStart(2, '0')}:05:09`);
    expect(createdAt).toContain('2026');
    expect(createdAt).not.toMatch(/AM|PM/i);
    expect(numbers).toEqual(['1,300', '1,234', '$0.00065', '$0.000617', '82', '$0.000123', '$0.00074']);
    // One page only: no pager.
    expect(screen.queryByRole('button', { name: 'Next' })).not.toBeInTheDocument();
    expect(screen.queryByText(/^Page \d/)).not.toBeInTheDocument();
  });

  it('shows whole-dollar costs with cents, and "No data" for a total the api has not settled yet', async () => {
    server.use(
      meHandlers.signedIn(),
      listsHandlers.chatCompletions(
        pageOf([
          buildChatCompletion({ id: 'settled', estimatedInputCost: 1.5, inputCost: 2, outputCost: 0.0000015, totalCost: 2.0000015 }),
          buildChatCompletion({ id: 'pending', totalCost: undefined }),
        ]),
      ),
    );
    renderRoute('/chat-completions');

    await screen.findByRole('table', { name: 'Chat completions' });
    const [settled, pending] = bodyRows();
    expect(cellTexts(settled!).slice(7)).toEqual(['$1.50', '$2.00', '82', '$0.0000015', '$2.0000015']);
    expect(cellTexts(pending!).at(-1)).toBe('No data');
  });

  it('says "Loading..." until the page arrives', async () => {
    let release: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (release = resolve));
    server.use(
      meHandlers.signedIn(),
      listsHandlers.chatCompletions(async () => {
        await arrived;
        return pageOf([buildChatCompletion()]);
      }),
    );
    renderRoute('/chat-completions');

    expect(await screen.findByText('Loading...')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    release();
    expect(await screen.findByText('chatcmpl-7f3a9c2e')).toBeInTheDocument();
    expect(screen.queryByText('Loading...')).not.toBeInTheDocument();
  });

  it('says "No chat completions found" when there are none', async () => {
    server.use(meHandlers.signedIn(), listsHandlers.chatCompletions(pageOf([])));
    renderRoute('/chat-completions');

    expect(await screen.findByText('No chat completions found')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('asks for 100 newest first with the searchString, and for one key when the URL names it', async () => {
    const { handler, sent } = pagedByToken({ first: pageOf([buildChatCompletion()]) });
    server.use(meHandlers.signedIn(), handler);
    const keyId = '3a7c1a52-1f0e-4d5e-9a51-2f3c4b5d6e7f';
    renderRoute(`/chat-completions?publishableKeyId=${keyId}&searchString=ada`);

    await screen.findByRole('table', { name: 'Chat completions' });
    expect(Object.fromEntries(sent[0]!)).toEqual({ asc: 'false', limit: '100', searchString: 'ada', publishableKeyId: keyId });
  });

  it('pages with the tokens: Next, Previous, First; the page label only when a page lies before', async () => {
    const { handler, sent } = pagedByToken({
      first: pageOf([buildChatCompletion({ id: 'row-page-1' })], { nextPageToken: 'tok-next-2' }),
      'tok-next-2': pageOf([buildChatCompletion({ id: 'row-page-2' })], { nextPageToken: 'tok-next-3', previousPageToken: 'tok-prev-1' }),
      'tok-next-3': pageOf([buildChatCompletion({ id: 'row-page-3' })], { previousPageToken: 'tok-prev-2' }),
      'tok-prev-2': pageOf([buildChatCompletion({ id: 'row-page-2' })], { nextPageToken: 'tok-next-3', previousPageToken: 'tok-prev-1' }),
    });
    server.use(meHandlers.signedIn(), handler);
    const { user, router } = renderRoute('/chat-completions');

    expect(await screen.findByText('row-page-1')).toBeInTheDocument();
    expect(screen.queryByText(/^Page \d/)).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'First' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('row-page-2')).toBeInTheDocument();
    expect(sent.at(-1)!.get('nextPageToken')).toBe('tok-next-2');
    expect(screen.getByText('Page 2')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('row-page-3')).toBeInTheDocument();
    expect(screen.getByText('Page 3')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Previous' }));
    expect(await screen.findByText('row-page-2')).toBeInTheDocument();
    expect(sent.at(-1)!.get('previousPageToken')).toBe('tok-prev-2');
    expect(sent.at(-1)!.has('nextPageToken')).toBe(false);
    expect(screen.getByText('Page 2')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'First' }));
    expect(await screen.findByText('row-page-1')).toBeInTheDocument();
    expect(screen.queryByText(/^Page \d/)).not.toBeInTheDocument();
    expect(router.state.location.search).toBe('');
  });

  it('keeps the page in the URL, so a reload shows it again; First then asks without tokens', async () => {
    const { handler, sent } = pagedByToken({
      first: pageOf([buildChatCompletion({ id: 'row-page-1' })], { nextPageToken: 'tok-next-2' }),
      'tok-next-2': pageOf([buildChatCompletion({ id: 'row-page-2' })], { previousPageToken: 'tok-prev-1' }),
    });
    server.use(meHandlers.signedIn(), handler);
    const { user } = renderRoute('/chat-completions?page=2&nextPageToken=tok-next-2');

    expect(await screen.findByText('row-page-2')).toBeInTheDocument();
    expect(screen.getByText('Page 2')).toBeInTheDocument();
    expect(sent).toHaveLength(1);

    await user.click(screen.getByRole('button', { name: 'First' }));
    expect(await screen.findByText('row-page-1')).toBeInTheDocument();
    expect(sent).toHaveLength(2);
    expect(sent[1]!.has('nextPageToken')).toBe(false);
    expect(sent[1]!.has('previousPageToken')).toBe(false);
    expect(screen.queryByText(/^Page \d/)).not.toBeInTheDocument();
  });

  it('counts a page number without a token as page 1', async () => {
    const { handler, sent } = pagedByToken({
      first: pageOf([buildChatCompletion({ id: 'row-page-1' })], { nextPageToken: 'tok-next-2' }),
      'tok-next-2': pageOf([buildChatCompletion({ id: 'row-page-2' })], { previousPageToken: 'tok-prev-1' }),
    });
    server.use(meHandlers.signedIn(), handler);
    const { user } = renderRoute('/chat-completions?page=7');

    expect(await screen.findByText('row-page-1')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Page 2')).toBeInTheDocument();
    expect(sent.at(-1)!.get('nextPageToken')).toBe('tok-next-2');
  });

  it('logs a failed load as "Failed to load chat completions" without a toast', async () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {});
    server.use(meHandlers.signedIn(), listsHandlers.chatCompletions(problem(500)));
    renderRoute('/chat-completions');

    expect(await screen.findByText('This list could not be loaded.')).toBeInTheDocument();
    expect(warn).toHaveBeenCalledWith('Failed to load chat completions', expect.objectContaining({ status: 500 }));
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
  });
});

describe('/chat-completions with a page link the api refuses', () => {
  const notice = 'That page link has expired or is invalid; showing the first page.';

  /** Page 1 and 2 by token; `stale` and any other unknown token are refused as the api does. */
  function withStaleLinks() {
    const sent: URLSearchParams[] = [];
    const handler = listsHandlers.chatCompletions((query) => {
      sent.push(query);
      const next = query.get('nextPageToken');
      const previous = query.get('previousPageToken');
      if (next === 'tok-next-2') return pageOf([buildChatCompletion({ id: 'row-page-2' })], { previousPageToken: 'tok-prev-1' });
      if (next) return refusedPageToken('nextPageToken');
      if (previous) return refusedPageToken('previousPageToken');
      return pageOf([buildChatCompletion({ id: 'row-page-1' })], { nextPageToken: 'tok-next-2' });
    });
    return { handler, sent };
  }

  beforeEach(() => {
    vi.spyOn(logger, 'warn').mockImplementation(() => {});
  });

  it.each([
    ['an unknown next token', '?page=3&nextPageToken=tok-stale&sortDirection=DESC', '?sortDirection=DESC'],
    ['an unknown previous token', '?searchString=kept&page=2&previousPageToken=tok-stale', '?searchString=kept'],
  ])('shows page 1 in place of %s, says so, and leaves no history entry for the dead link', async (_case, search, replaced) => {
    const { handler, sent } = withStaleLinks();
    server.use(meHandlers.signedIn(), handler);
    const { router } = renderRoute(`/chat-completions${search}`);

    expect(await screen.findByText('row-page-1')).toBeInTheDocument();
    expect(screen.getByText(notice)).toBeInTheDocument();
    expect(screen.queryByText('This list could not be loaded.')).not.toBeInTheDocument();
    expect(router.state.location.search).toBe(replaced);
    expect(router.state.historyAction).toBe('REPLACE');
    expect(sent).toHaveLength(2);
    expect(sent[1]!.has('nextPageToken') || sent[1]!.has('previousPageToken')).toBe(false);
    expect(logger.warn).toHaveBeenCalledWith('Failed to load chat completions', expect.objectContaining({ status: 400 }));
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
  });

  it('drops the notice once the user pages on', async () => {
    const { handler } = withStaleLinks();
    server.use(meHandlers.signedIn(), handler);
    const { user } = renderRoute('/chat-completions?page=3&nextPageToken=tok-stale');

    expect(await screen.findByText(notice)).toBeInTheDocument();
    await user.click(await screen.findByRole('button', { name: 'Next' }));

    expect(await screen.findByText('row-page-2')).toBeInTheDocument();
    expect(screen.queryByText(notice)).not.toBeInTheDocument();
  });

  it('keeps the link and offers a retry for a 400 that is not about the token', async () => {
    server.use(meHandlers.signedIn(), listsHandlers.chatCompletions(problem(400)));
    const { router } = renderRoute('/chat-completions?page=2&nextPageToken=tok-next-2');

    expect(await screen.findByText('This list could not be loaded.')).toBeInTheDocument();
    expect(router.state.location.search).toBe('?page=2&nextPageToken=tok-next-2');
    expect(screen.queryByText(notice)).not.toBeInTheDocument();
  });
});

describe('/chat-completions usage chart', () => {
  const web = buildPublishableKey({ id: '6f1d2c3b-4a59-4e68-8d7c-1b2a3c4d5e6f', name: 'Web app', spendLimitAmount: 10 });
  const backend = buildPublishableKey({ id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', name: 'Backend', spendLimitAmount: 25 });

  const retired = { id: '3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a', name: 'Old site', deleted: true };

  /**
   * 30 days of usage by two models and two keys (one since deleted), the last two days with calls;
   * "gpt-4.1" has a dot on purpose.
   */
  const usage = (overrides: Parameters<typeof buildUsageDaily>[0] = {}) => {
    const empty = buildUsageDaily();
    return buildUsageDaily({
      days: empty.days.map((day, i) =>
        i < 28
          ? { ...day, costByModel: { 'gpt-4.1': 0, 'gpt-4o-mini': 0 }, costByKey: { [web.id]: 0, [retired.id]: 0 } }
          : {
              ...day,
              costByModel: { 'gpt-4.1': 1.5, 'gpt-4o-mini': 0.25 },
              costByKey: { [web.id]: 1, [retired.id]: 0.75 },
              cost: 1.75,
              calls: 600,
              inputTokens: 60_000,
              outputTokens: 6_170,
              monthToDateCost: 1.75 * (i - 27),
            },
      ),
      models: ['gpt-4.1', 'gpt-4o-mini'],
      keys: [{ id: web.id, name: web.name, deleted: false }, retired],
      totals: { cost: 3.5, calls: 1_200, inputTokens: 120_000, outputTokens: 12_340 },
      ...overrides,
    });
  };
  const totals = async () => within(await screen.findByRole('group', { name: 'Usage totals' }));
  const keySelect = () => screen.getByRole('combobox', { name: 'Key' });

  it('shows the period totals and a daily chart stacked by model, its days in UTC', async () => {
    server.use(meHandlers.signedIn(), listsHandlers.chatCompletions(pageOf([buildChatCompletion()])), usageHandlers.daily(usage()));
    renderRoute('/chat-completions');

    expect(await screen.findByRole('heading', { name: 'Daily spend, last 30 days (UTC)' })).toBeInTheDocument();
    const figures = await totals();
    expect(figures.getByText('$3.50')).toBeInTheDocument();
    expect(figures.getByText('1,200')).toBeInTheDocument();
    expect(figures.getByText('120,000')).toBeInTheDocument();
    expect(figures.getByText('12,340')).toBeInTheDocument();
    // The legend names every model; the axis says its days are UTC days.
    expect(await screen.findByText('gpt-4.1')).toBeInTheDocument();
    expect(screen.getByText('gpt-4o-mini')).toBeInTheDocument();
    expect(screen.getByText('Day (UTC)')).toBeInTheDocument();
    expect(screen.queryByText(/Monthly budget/)).not.toBeInTheDocument();
    expect(screen.getByRole('table', { name: 'Chat completions' })).toBeInTheDocument();
  });

  it('stacks the bars by key when asked, the legend naming each key and a deleted one as deleted, and back by model', async () => {
    server.use(meHandlers.signedIn(), listsHandlers.chatCompletions(pageOf([])), usageHandlers.daily(usage()));
    const { user } = renderRoute('/chat-completions');

    const split = await screen.findByRole('radiogroup', { name: 'Split daily spend' });
    expect(within(split).getByRole('radio', { name: 'By model' })).toBeChecked();
    expect(await screen.findByText('gpt-4.1')).toBeInTheDocument();
    expect(screen.queryByText('Web app')).not.toBeInTheDocument();

    await user.click(within(split).getByRole('radio', { name: 'By key' }));
    expect(within(split).getByRole('radio', { name: 'By key' })).toBeChecked();
    expect(await screen.findByText('Web app')).toBeInTheDocument();
    expect(screen.getByText('Old site (deleted)')).toBeInTheDocument();
    expect(screen.queryByText('gpt-4.1')).not.toBeInTheDocument();
    expect(screen.queryByText('gpt-4o-mini')).not.toBeInTheDocument();

    await user.click(within(split).getByRole('radio', { name: 'By model' }));
    expect(await screen.findByText('gpt-4.1')).toBeInTheDocument();
    expect(screen.queryByText('Web app')).not.toBeInTheDocument();
  });

  it('offers no split by key once the chart shows one key', async () => {
    server.use(
      meHandlers.signedIn(),
      keysHandlers.list([web, backend]),
      listsHandlers.chatCompletions(pageOf([])),
      usageHandlers.daily(usage({ keys: [{ id: web.id, name: web.name, deleted: false }], publishableKey: { id: web.id, name: web.name, monthlyBudget: 10 } })),
    );
    renderRoute(`/chat-completions?publishableKeyId=${web.id}`);

    expect(await screen.findByText('Monthly budget $10.00')).toBeInTheDocument();
    expect(screen.getByText('gpt-4.1')).toBeInTheDocument();
    expect(screen.queryByRole('radiogroup', { name: 'Split daily spend' })).not.toBeInTheDocument();
  });

  it('says so when there was no usage in the window', async () => {
    server.use(meHandlers.signedIn(), listsHandlers.chatCompletions(pageOf([])));
    renderRoute('/chat-completions');

    expect(await screen.findByText('No usage in the last 30 days.')).toBeInTheDocument();
    expect(screen.queryByRole('group', { name: 'Usage totals' })).not.toBeInTheDocument();
  });

  it('choosing a key puts it in the URL, narrows chart and table to it and draws its monthly budget', async () => {
    const usageQueries: URLSearchParams[] = [];
    const tableQueries: URLSearchParams[] = [];
    server.use(
      meHandlers.signedIn(),
      keysHandlers.list([web, backend]),
      listsHandlers.chatCompletions((query) => (tableQueries.push(query), pageOf([buildChatCompletion()]))),
      usageHandlers.daily((query) => {
        usageQueries.push(query);
        const keyId = query.get('publishableKeyId');
        return keyId ? usage({ publishableKey: { id: keyId, name: 'Backend', monthlyBudget: 25 } }) : usage();
      }),
    );
    const { user, router } = renderRoute('/chat-completions?page=2&nextPageToken=tok-next-2');

    (await totals()).getByText('$3.50');
    await user.click(keySelect());
    await user.click(await screen.findByRole('option', { name: 'Backend' }));

    expect(new URLSearchParams(router.state.location.search).get('publishableKeyId')).toBe(backend.id);
    // The old page token belonged to the unfiltered list: the table starts over.
    expect(router.state.location.search).not.toMatch(/nextPageToken|page=/);
    expect(await screen.findByText('Monthly budget $25.00')).toBeInTheDocument();
    expect(screen.getByText('Month-to-date spend')).toBeInTheDocument();
    expect(usageQueries.at(-1)!.get('publishableKeyId')).toBe(backend.id);
    expect(tableQueries.at(-1)!.get('publishableKeyId')).toBe(backend.id);
    expect(tableQueries.at(-1)!.has('nextPageToken')).toBe(false);

    await user.click(keySelect());
    await user.click(await screen.findByRole('option', { name: 'All keys' }));
    expect(router.state.location.search).toBe('');
    await waitFor(() => expect(tableQueries.at(-1)!.has('publishableKeyId')).toBe(false));
    expect(screen.queryByText('Monthly budget $25.00')).not.toBeInTheDocument();
  }, 20_000);

  it('opens with the key the URL names selected', async () => {
    server.use(meHandlers.signedIn(), keysHandlers.list([web, backend]), listsHandlers.chatCompletions(pageOf([])));
    renderRoute(`/chat-completions?publishableKeyId=${web.id}`);

    await waitFor(() => expect(keySelect()).toHaveValue('Web app'));
  });

  it('says the usage could not be loaded, logs it without a toast, and keeps the table', async () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {});
    server.use(meHandlers.signedIn(), listsHandlers.chatCompletions(pageOf([buildChatCompletion()])), usageHandlers.daily(problem(500)));
    renderRoute('/chat-completions');

    expect(await screen.findByText('Usage could not be loaded.')).toBeInTheDocument();
    expect(warn).toHaveBeenCalledWith('Failed to load usage', expect.objectContaining({ status: 500 }));
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
    expect(await screen.findByRole('table', { name: 'Chat completions' })).toBeInTheDocument();
  });
});
