import type { CreditHistoryEntry, Role } from '@meterway/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { logger } from '../../lib/logger';
import { buildPublishableKey, keysHandlers } from '../../testing/keys-handlers';
import { buildCreditHistoryEntry, listsHandlers, type Page, pageOf, problem } from '../../testing/lists-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';
import { testRuntimeConfig } from '../../testing/runtime-config';
import { bodyCellTexts } from '../../testing/table';

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

beforeAll(() => Promise.all([import('./app-layout'), import('./credit-history'), import('./dashboard')]), 30_000);

beforeEach(() => {
  vi.spyOn(logger, 'warn').mockImplementation(() => {});
});

/** Answers by token: the first page, or the page a token names; records every query sent. */
function pagedByToken(pages: Record<string, Page<CreditHistoryEntry>>) {
  const sent: URLSearchParams[] = [];
  const handler = listsHandlers.creditHistory((query) => {
    sent.push(query);
    return pages[query.get('nextPageToken') ?? query.get('previousPageToken') ?? 'first']!;
  });
  return { handler, sent };
}

const table = () => screen.getByRole('table', { name: 'Credit history' });

describe('/credit-history', () => {
  it('says "Loading..." until the page arrives', async () => {
    let release = () => {};
    const arrived = new Promise<void>((resolve) => (release = resolve));
    server.use(
      meHandlers.signedIn(),
      listsHandlers.creditHistory(async () => {
        await arrived;
        return pageOf([buildCreditHistoryEntry({ note: 'row-arrived' })]);
      }),
    );
    renderRoute('/credit-history');

    expect(await screen.findByText('Loading...')).toBeInTheDocument();
    release();
    expect(await screen.findByText('row-arrived')).toBeInTheDocument();
    expect(screen.queryByText('Loading...')).not.toBeInTheDocument();
  });

  it('says "No credit history yet" when there is none', async () => {
    server.use(meHandlers.signedIn(), listsHandlers.creditHistory(pageOf([])));
    renderRoute('/credit-history');

    expect(await screen.findByText('No credit history yet')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('shows the date, the kind in words, the signed amount, the balance after, the note and the receipt link in a new tab', async () => {
    server.use(
      meHandlers.signedIn(),
      listsHandlers.creditHistory(
        pageOf([
          buildCreditHistoryEntry({
            id: 'h1',
            kind: 'dispute',
            amount: 4,
            balanceAfter: 6,
            note: 'dispute of top-up cs_1 won: $4 given back',
            receiptUrl: null,
          }),
          buildCreditHistoryEntry({ id: 'h2', kind: 'refund', amount: -1.5, balanceAfter: 2, note: 'refund of top-up cs_1', receiptUrl: null }),
          buildCreditHistoryEntry({ id: 'h3', kind: 'adjustment', amount: 2.5, balanceAfter: 3.5, note: 'launch promotion', receiptUrl: null }),
          buildCreditHistoryEntry({ id: 'h4', kind: 'top_up', amount: 25, balanceAfter: 25 }),
        ]),
      ),
    );
    renderRoute('/credit-history');

    await screen.findByRole('table', { name: 'Credit history' });
    expect(
      within(table())
        .getAllByRole('columnheader')
        .map((header) => header.textContent),
    ).toEqual(['Date', 'Kind', 'Amount', 'Balance after', 'Note', 'Expires', 'Receipt']);
    const [won, refunded, adjusted, toppedUp] = bodyCellTexts(table());
    expect(toppedUp![0]).toContain('2026');
    expect(won!.slice(1)).toEqual(['Dispute won', '+$4.00', '$6.00', 'dispute of top-up cs_1 won: $4 given back', '—', '—']);
    expect(refunded!.slice(1)).toEqual(['Refund', '-$1.50', '$2.00', 'refund of top-up cs_1', '—', '—']);
    expect(adjusted!.slice(1)).toEqual(['Adjustment', '+$2.50', '$3.50', 'launch promotion', '—', '—']);
    expect(toppedUp!.slice(1)).toEqual(['Top-up', '+$25.00', '$25.00', '—', '—', 'Receipt']);

    const receipt = within(table()).getByRole('link', { name: 'Receipt' });
    expect(receipt).toHaveAttribute('href', 'https://pay.example.com/receipts/rcpt_1');
    expect(receipt).toHaveAttribute('target', '_blank');
    expect(receipt).toHaveAttribute('rel', 'noopener noreferrer');
  });

  it("names grants, their expiries and auto top-ups, with the grant's last day", async () => {
    server.use(
      meHandlers.signedIn(),
      listsHandlers.creditHistory(
        pageOf([
          buildCreditHistoryEntry({ id: 'g3', kind: 'auto_top_up', amount: 20, balanceAfter: 23, note: null, receiptUrl: null }),
          buildCreditHistoryEntry({
            id: 'g2',
            kind: 'grant_expiry',
            amount: -2,
            balanceAfter: 3,
            note: 'trial',
            expiresAt: '2026-12-01T00:00:00.000Z',
            receiptUrl: null,
          }),
          buildCreditHistoryEntry({
            id: 'g1',
            kind: 'grant',
            amount: 5,
            balanceAfter: 5,
            note: 'trial',
            expiresAt: '2026-12-01T00:00:00.000Z',
            receiptUrl: null,
          }),
        ]),
      ),
    );
    renderRoute('/credit-history');

    await screen.findByRole('table', { name: 'Credit history' });
    const lastDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date('2026-11-30T00:00:00.000Z'));
    expect(bodyCellTexts(table()).map((cells) => cells.slice(1))).toEqual([
      ['Auto top-up', '+$20.00', '$23.00', '—', '—', '—'],
      ['Expired grant', '-$2.00', '$3.00', 'trial', lastDay, '—'],
      ['Grant', '+$5.00', '$5.00', 'trial', lastDay, '—'],
    ]);
  });

  it('asks for 100 newest first and pages with the tokens', async () => {
    const { handler, sent } = pagedByToken({
      first: pageOf([buildCreditHistoryEntry({ id: 'p1', note: 'row-page-1' })], { nextPageToken: 'tok-next-2' }),
      'tok-next-2': pageOf([buildCreditHistoryEntry({ id: 'p2', note: 'row-page-2' })], { previousPageToken: 'tok-prev-1' }),
      'tok-prev-1': pageOf([buildCreditHistoryEntry({ id: 'p1', note: 'row-page-1' })], { nextPageToken: 'tok-next-2' }),
    });
    server.use(meHandlers.signedIn(), handler);
    const { user } = renderRoute('/credit-history');

    expect(await screen.findByText('row-page-1')).toBeInTheDocument();
    expect(Object.fromEntries(sent[0]!)).toEqual({ asc: 'false', limit: '100', searchString: '' });

    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('row-page-2')).toBeInTheDocument();
    expect(sent.at(-1)!.get('nextPageToken')).toBe('tok-next-2');
    expect(screen.getByText('Page 2')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Previous' }));
    expect(await screen.findByText('row-page-1')).toBeInTheDocument();
    expect(sent.at(-1)!.get('previousPageToken')).toBe('tok-prev-1');
    expect(sent.at(-1)!.has('nextPageToken')).toBe(false);
  });

  it('says the list could not be loaded, logged without a toast', async () => {
    server.use(meHandlers.signedIn(), listsHandlers.creditHistory(problem(500)));
    renderRoute('/credit-history');

    expect(await screen.findByText('This list could not be loaded.')).toBeInTheDocument();
    expect(logger.warn).toHaveBeenCalledWith('Failed to load the credit history', expect.objectContaining({ status: 500 }));
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
  });

  it('is for the roles that manage credit: a developer is told so and nothing is asked', async () => {
    server.use(meHandlers.signedIn({ role: 'developer' }));
    renderRoute('/credit-history');

    expect(await screen.findByText('Only owners, admins and billing members see the credit history of an organisation.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Export CSV' })).not.toBeInTheDocument();
  });
});

describe('/credit-history export', () => {
  const saved: { blob: Blob; fileName: string }[] = [];
  beforeEach(() => {
    saved.length = 0;
    // jsdom has no object URLs and does not download: the link's click is where the file is saved.
    const blobs = new Map<string, Blob>();
    URL.createObjectURL = (blob: Blob) => {
      const url = `blob:http://localhost:3000/${blobs.size}`;
      blobs.set(url, blob);
      return url;
    };
    URL.revokeObjectURL = () => undefined;
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push({ blob: blobs.get(this.href)!, fileName: this.download });
    });
  });
  afterEach(() => {
    Reflect.deleteProperty(URL, 'createObjectURL');
    Reflect.deleteProperty(URL, 'revokeObjectURL');
  });

  it('exports the history newest first under the name the api gives', async () => {
    const csv =
      'ID,Created at,Kind,Amount (USD),Balance after (USD),Note,Expires at,Receipt URL\r\nh1,2026-11-24T09:30:00.000Z,top_up,25,25,,,https://pay.example.com/r\r\n';
    const queries: URLSearchParams[] = [];
    server.use(
      meHandlers.signedIn({ role: 'billing' }),
      listsHandlers.creditHistory(pageOf([buildCreditHistoryEntry()])),
      http.get(`${api}/bff/credit-history/export`, ({ request }) => {
        queries.push(new URL(request.url).searchParams);
        return new HttpResponse(csv, {
          headers: {
            'Content-Type': 'text/csv; charset=utf-8',
            'Content-Disposition': 'attachment; filename="credit-history-2026-11-24.csv"',
            'X-Total-Count': '1',
          },
        });
      }),
    );
    const { user } = renderRoute('/credit-history');

    await user.click(await screen.findByRole('button', { name: 'Export CSV' }));

    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]!.fileName).toBe('credit-history-2026-11-24.csv');
    expect(await saved[0]!.blob.text()).toBe(csv);
    expect(Object.fromEntries(queries[0]!)).toEqual({ asc: 'false' });
  });

  it("says what the api refused in a 'Wooops!' toast", async () => {
    server.use(
      meHandlers.signedIn(),
      listsHandlers.creditHistory(pageOf([buildCreditHistoryEntry()])),
      http.get(`${api}/bff/credit-history/export`, () =>
        HttpResponse.json(
          { type: 'about:blank', title: 'Forbidden', status: 403, detail: 'Your role may not see the credit history' },
          { status: 403, headers: { 'Content-Type': 'application/problem+json' } },
        ),
      ),
    );
    const { user } = renderRoute('/credit-history');

    await user.click(await screen.findByRole('button', { name: 'Export CSV' }));

    expect(await screen.findByText('Wooops!')).toBeInTheDocument();
    expect(screen.getByText('Failed to export the credit history: Your role may not see the credit history')).toBeInTheDocument();
    expect(saved).toEqual([]);
  });
});

describe('the credit balance card links the credit history', () => {
  const signedInAs = (role: Role) =>
    meHandlers.signedIn({ role, remainingSpendAmount: 25, organizations: [{ organizationId: 'org_01', organizationName: 'Analytical Engines', role }] });

  it('for billing, and the link opens the history', async () => {
    server.use(signedInAs('billing'), listsHandlers.creditHistory(pageOf([buildCreditHistoryEntry({ note: 'from-the-card' })])));
    const { user, router } = renderRoute('/dashboard');

    await user.click(await screen.findByRole('link', { name: 'Credit history' }));
    expect(router.state.location.pathname).toBe('/credit-history');
    expect(await screen.findByText('from-the-card')).toBeInTheDocument();
  });

  it('not for a developer', async () => {
    server.use(signedInAs('developer'), keysHandlers.list([buildPublishableKey()]), keysHandlers.models(), keysHandlers.blocks());
    renderRoute('/dashboard');

    expect(await screen.findByRole('button', { name: 'Edit key Web app' })).toBeInTheDocument();
    expect(screen.getByText('$25.00')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Credit history' })).not.toBeInTheDocument();
  });
});
