import type { ChatCompletion } from '@meterway/contracts';
import { screen, within } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../lib/logger';
import { buildChatCompletion, listsHandlers, type Page, pageOf, problem } from '../../testing/lists-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';

const headers = [
  'ID',
  'Created at',
  'Model',
  'Estimated input tokens',
  'Actual input tokens',
  'Estimated input cost',
  'Actual input cost',
  'Output tokens',
  'Output cost',
  'Total cost',
];

const cellTexts = (row: HTMLElement) => within(row).getAllByRole('cell').map((cell) => cell.textContent);

/** The rows of the table, header row excluded. */
const bodyRows = () => within(screen.getByRole('table', { name: 'Chat completions' })).getAllByRole('row').slice(1);

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

describe('/chat-completions', () => {
  it('shows every column and a row with its timestamp in 24-hour time, token counts and sub-cent costs', async () => {
    server.use(meHandlers.signedIn(), listsHandlers.chatCompletions(pageOf([buildChatCompletion()])));
    renderRoute('/chat-completions');

    expect(await screen.findByRole('heading', { name: 'Chat completions' })).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Chat completions' });
    expect(within(table).getAllByRole('columnheader').map((th) => th.textContent)).toEqual(headers);

    const [id, createdAt, model, ...numbers] = cellTexts(bodyRows()[0]!);
    expect([id, model]).toEqual(['chatcmpl-7f3a9c2e', 'meterway-demo']);
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
    expect(cellTexts(settled!).slice(5)).toEqual(['$1.50', '$2.00', '82', '$0.0000015', '$2.0000015']);
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
    expect(screen.getByText('Showing the calls of one publishable key.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Show all' })).toHaveAttribute('href', '/chat-completions');
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
