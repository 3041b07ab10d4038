import { useQuery } from '@tanstack/react-query';
import { act, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderRoutes } from '../testing/render';
import { PagedTable } from './paged-table';
import { type ListRequest, useTokenPaging } from './pager';

type Row = { id: string };
type Page = { items: Row[]; pagination: { nextPageToken: string | null; previousPageToken: string | null } };

// Three pages of one row each, answered by token as the api would, and a list of one page.
const pages: Record<string, Page> = {
  first: { items: [{ id: 'row-1' }], pagination: { nextPageToken: 'n2', previousPageToken: null } },
  n2: { items: [{ id: 'row-2' }], pagination: { nextPageToken: 'n3', previousPageToken: 'p1' } },
  n3: { items: [{ id: 'row-3' }], pagination: { nextPageToken: null, previousPageToken: 'p2' } },
  p2: { items: [{ id: 'row-2' }], pagination: { nextPageToken: 'n3', previousPageToken: 'p1' } },
  p1: { items: [{ id: 'row-1' }], pagination: { nextPageToken: 'n2', previousPageToken: null } },
  single: { items: [{ id: 'only' }], pagination: { nextPageToken: null, previousPageToken: null } },
};

const answer = (request: ListRequest) => pages[request.nextPageToken ?? request.previousPageToken ?? 'first']!;

function Rows() {
  const paging = useTokenPaging();
  const query = useQuery({ queryKey: ['rows', paging.request], queryFn: () => answer(paging.request) });
  return (
    <PagedTable label="Rows" query={query} paging={paging} columns={[{ header: 'ID', cell: (row) => row.id }]} rowKey={(row) => row.id} emptyText="No rows" />
  );
}

const render = (path = '/rows') => renderRoutes([{ path: '/rows', element: <Rows /> }], path);

describe('PagedTable', () => {
  it('keeps page and token in the URL, so Back returns to the page before', async () => {
    const { user, router } = render();

    await user.click(await screen.findByRole('button', { name: 'Next' }));
    await user.click(await screen.findByRole('button', { name: 'Next' }));
    expect(await screen.findByText('row-3')).toBeInTheDocument();
    expect(router.state.location.search).toBe('?page=3&nextPageToken=n3');

    await act(() => router.navigate(-1));
    expect(await screen.findByText('row-2')).toBeInTheDocument();
    expect(screen.getByText('Page 2')).toBeInTheDocument();
  });

  it('goes Previous back to page 1, where the page label and First give way', async () => {
    const { user, router } = render('/rows?page=2&nextPageToken=n2&searchString=kept');

    await user.click(await screen.findByRole('button', { name: 'Previous' }));

    expect(await screen.findByText('row-1')).toBeInTheDocument();
    expect(router.state.location.search).toBe('?page=1&searchString=kept&previousPageToken=p1');
    expect(screen.queryByText(/^Page \d/)).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'First' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Next' })).toBeEnabled();
  });

  it('shows no pager when the list has a single page', async () => {
    render('/rows?page=1&nextPageToken=single');

    expect(await screen.findByText('only')).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Pages' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'First' })).not.toBeInTheDocument();
  });
});
