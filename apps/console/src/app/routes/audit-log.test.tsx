import type { AuditEntry } from '@meterway/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { logger } from '../../lib/logger';
import { buildAuditEntry, listsHandlers, type Page, pageOf, problem } from '../../testing/lists-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';
import { testRuntimeConfig } from '../../testing/runtime-config';
import { bodyCellTexts } from '../../testing/table';

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

beforeAll(() => Promise.all([import('./app-layout'), import('./audit-log')]), 30_000);

beforeEach(() => {
  vi.spyOn(logger, 'warn').mockImplementation(() => {});
});

/** Answers by token: the first page, or the page a token names; records every query sent. */
function pagedByToken(pages: Record<string, Page<AuditEntry>>) {
  const sent: URLSearchParams[] = [];
  const handler = listsHandlers.auditLog((query) => {
    sent.push(query);
    return pages[query.get('nextPageToken') ?? query.get('previousPageToken') ?? 'first']!;
  });
  return { handler, sent };
}

const table = () => screen.getByRole('table', { name: 'Audit log' });

describe('/audit-log', () => {
  it('says "Loading..." until the page arrives', async () => {
    let release = () => {};
    const arrived = new Promise<void>((resolve) => (release = resolve));
    server.use(
      meHandlers.signedIn(),
      listsHandlers.auditLog(async () => {
        await arrived;
        return pageOf([buildAuditEntry()]);
      }),
    );
    renderRoute('/audit-log');

    expect(await screen.findByText('Loading...')).toBeInTheDocument();
    release();
    expect(await screen.findByText('Web app')).toBeInTheDocument();
    expect(screen.queryByText('Loading...')).not.toBeInTheDocument();
  });

  it('says "No audit entries found" when there are none', async () => {
    server.use(meHandlers.signedIn(), listsHandlers.auditLog(pageOf([])));
    renderRoute('/audit-log');

    expect(await screen.findByText('No audit entries found')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('shows when, who, what, on what, and each changed field as before → after', async () => {
    server.use(
      meHandlers.signedIn(),
      listsHandlers.auditLog(
        pageOf([
          buildAuditEntry({
            id: 'e1',
            changes: { spendLimitAmount: { from: 10, to: 25 }, allowedOrigins: { from: ['localhost'], to: ['localhost', 'https://a.example'] } },
          }),
          buildAuditEntry({
            id: 'e2',
            action: 'member.role_changed',
            actorEmail: 'grace@example.com',
            target: 'linus@example.com',
            changes: { role: { from: 'developer', to: 'billing' } },
          }),
          buildAuditEntry({ id: 'e3', action: 'key.deleted', target: 'Old key', changes: { reason: { to: 'No longer used' } } }),
          buildAuditEntry({ id: 'e4', action: 'member.joined', target: 'linus@example.com', changes: {} }),
        ]),
      ),
    );
    renderRoute('/audit-log');

    await screen.findByRole('table', { name: 'Audit log' });
    expect(
      within(table())
        .getAllByRole('columnheader')
        .map((header) => header.textContent),
    ).toEqual(['When', 'Actor', 'Action', 'Target', 'Changes']);
    const [updated, roleChanged, deleted, joined] = bodyCellTexts(table());
    expect(updated![0]).toContain('2026');
    expect(updated!.slice(1)).toEqual([
      'ada@example.com',
      'Key updated',
      'Web app',
      'spendLimitAmount: 10 → 25allowedOrigins: localhost → localhost, https://a.example',
    ]);
    expect(roleChanged!.slice(1)).toEqual(['grace@example.com', 'Member role changed', 'linus@example.com', 'role: developer → billing']);
    expect(deleted!.slice(2)).toEqual(['Key deleted', 'Old key', 'reason: No longer used']);
    expect(joined!.slice(2)).toEqual(['Member joined', 'linus@example.com', '—']);
  });

  it('asks for 100 newest first and pages with the tokens', async () => {
    const { handler, sent } = pagedByToken({
      first: pageOf([buildAuditEntry({ id: 'p1', target: 'row-page-1' })], { nextPageToken: 'tok-next-2' }),
      'tok-next-2': pageOf([buildAuditEntry({ id: 'p2', target: 'row-page-2' })], { previousPageToken: 'tok-prev-1' }),
      'tok-prev-1': pageOf([buildAuditEntry({ id: 'p1', target: 'row-page-1' })], { nextPageToken: 'tok-next-2' }),
    });
    server.use(meHandlers.signedIn(), handler);
    const { user } = renderRoute('/audit-log');

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

  it('filters by actor (on Enter) and by action, in the URL, each time from page 1', async () => {
    const { handler, sent } = pagedByToken({
      first: pageOf([buildAuditEntry({ target: 'row-page-1' })], { nextPageToken: 'tok-next-2' }),
      'tok-next-2': pageOf([buildAuditEntry({ target: 'row-page-2' })], { previousPageToken: 'tok-prev-1' }),
    });
    server.use(meHandlers.signedIn(), handler);
    const { user, router } = renderRoute('/audit-log');

    expect(await screen.findByText('row-page-1')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('row-page-2')).toBeInTheDocument();

    await user.type(screen.getByRole('textbox', { name: 'Actor e-mail' }), ' grace@example.com {Enter}');
    await waitFor(() => expect(sent.at(-1)!.get('actorEmail')).toBe('grace@example.com'));
    expect(sent.at(-1)!.has('nextPageToken')).toBe(false);
    expect(await screen.findByText('row-page-1')).toBeInTheDocument();

    await user.click(screen.getByRole('combobox', { name: 'Action' }));
    await user.click(await screen.findByRole('option', { name: 'Member role changed' }));
    await waitFor(() => expect(sent.at(-1)!.get('action')).toBe('member.role_changed'));
    expect(sent.at(-1)!.get('actorEmail')).toBe('grace@example.com');
    expect(new URLSearchParams(router.state.location.search).get('action')).toBe('member.role_changed');
    expect(new URLSearchParams(router.state.location.search).get('actorEmail')).toBe('grace@example.com');

    await user.click(screen.getByRole('combobox', { name: 'Action' }));
    await user.click(await screen.findByRole('option', { name: 'All actions' }));
    // That page was asked for before (cached): the URL says which entries show.
    await waitFor(() => expect(new URLSearchParams(router.state.location.search).has('action')).toBe(false));
    expect(new URLSearchParams(router.state.location.search).get('actorEmail')).toBe('grace@example.com');
  });

  it('takes the filters from the URL, dropping an action it does not know', async () => {
    const { handler, sent } = pagedByToken({ first: pageOf([buildAuditEntry()]) });
    server.use(meHandlers.signedIn(), handler);
    renderRoute('/audit-log?actorEmail=grace%40example.com&action=key.exploded');

    await screen.findByRole('table', { name: 'Audit log' });
    expect(sent[0]!.get('actorEmail')).toBe('grace@example.com');
    expect(sent[0]!.has('action')).toBe(false);
    expect(screen.getByRole('textbox', { name: 'Actor e-mail' })).toHaveValue('grace@example.com');
    expect(screen.getByRole('combobox', { name: 'Action' })).toHaveValue('All actions');
  });

  it('says the list could not be loaded, logged without a toast', async () => {
    server.use(meHandlers.signedIn(), listsHandlers.auditLog(problem(500)));
    renderRoute('/audit-log');

    expect(await screen.findByText('This list could not be loaded.')).toBeInTheDocument();
    expect(logger.warn).toHaveBeenCalledWith('Failed to load the audit log', expect.objectContaining({ status: 500 }));
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
  });

  it('is for owners and admins only: a billing member is told so and nothing is asked', async () => {
    server.use(meHandlers.signedIn({ role: 'billing' }));
    renderRoute('/audit-log');

    expect(await screen.findByText('Only owners and admins see the audit log of an organisation.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Export CSV' })).not.toBeInTheDocument();
  });
});

describe('/audit-log export', () => {
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

  it('exports the entries the filters choose, newest first, under the name the api gives', async () => {
    const csv = 'When,Actor,Action,Target,Changes\r\n2026-11-24T09:30:00.000Z,grace@example.com,key.updated,Web app,budget: 10 → 25\r\n';
    const queries: URLSearchParams[] = [];
    server.use(
      meHandlers.signedIn(),
      listsHandlers.auditLog(pageOf([buildAuditEntry()])),
      http.get(`${api}/bff/audit-log/export`, ({ request }) => {
        queries.push(new URL(request.url).searchParams);
        return new HttpResponse(csv, {
          headers: {
            'Content-Type': 'text/csv; charset=utf-8',
            'Content-Disposition': 'attachment; filename="audit-log-2026-11-24.csv"',
            'X-Total-Count': '1',
          },
        });
      }),
    );
    const { user } = renderRoute('/audit-log?actorEmail=grace%40example.com&action=key.updated');

    await user.click(await screen.findByRole('button', { name: 'Export CSV' }));

    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]!.fileName).toBe('audit-log-2026-11-24.csv');
    expect(await saved[0]!.blob.text()).toBe(csv);
    expect(Object.fromEntries(queries[0]!)).toEqual({ actorEmail: 'grace@example.com', action: 'key.updated', asc: 'false' });
  });

  it("says what the api refused in a 'Wooops!' toast", async () => {
    server.use(
      meHandlers.signedIn(),
      listsHandlers.auditLog(pageOf([buildAuditEntry()])),
      http.get(`${api}/bff/audit-log/export`, () =>
        HttpResponse.json(
          { type: 'about:blank', title: 'Forbidden', status: 403, detail: 'Your role may not see the audit log' },
          { status: 403, headers: { 'Content-Type': 'application/problem+json' } },
        ),
      ),
    );
    const { user } = renderRoute('/audit-log');

    await user.click(await screen.findByRole('button', { name: 'Export CSV' }));

    expect(await screen.findByText('Wooops!')).toBeInTheDocument();
    expect(screen.getByText('Failed to export the audit log: Your role may not see the audit log')).toBeInTheDocument();
    expect(saved).toEqual([]);
  });
});
