import { act, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderRoutes } from '../testing/render';
import { applyListParams, parseListParams, useListParams } from './list-params';

describe('parseListParams', () => {
  it('defaults page to 1 and leaves the rest absent', () => {
    expect(parseListParams('')).toEqual({
      searchString: undefined,
      page: 1,
      sortField: undefined,
      sortDirection: undefined,
      publishableKeyId: undefined,
      secretKeyId: undefined,
      checkoutSessionId: undefined,
      flowId: undefined,
    });
  });

  it('reads every parameter of spec §2', () => {
    const search =
      'searchString=ada&page=3&sortField=createdAt&sortDirection=DESC&publishableKeyId=pk_1&secretKeyId=sk_1&checkoutSessionId=cs_1&flowId=f_1&other=kept';
    expect(parseListParams(search)).toEqual({
      searchString: 'ada',
      page: 3,
      sortField: 'createdAt',
      sortDirection: 'DESC',
      publishableKeyId: 'pk_1',
      secretKeyId: 'sk_1',
      checkoutSessionId: 'cs_1',
      flowId: 'f_1',
    });
  });

  it.each(['asc', 'desc', 'Asc', 'UP', ''])('drops sortDirection=%s (ASC or DESC only)', (value) => {
    expect(parseListParams(`sortDirection=${value}`).sortDirection).toBeUndefined();
  });

  it.each([
    ['2', 2],
    [' 7 ', 7],
    ['0', 1],
    ['-3', 1],
    ['2.5', 1],
    ['abc', 1],
    ['', 1],
  ])('coerces page=%s to %i', (value, page) => {
    expect(parseListParams(`page=${encodeURIComponent(value)}`).page).toBe(page);
  });

  it('treats empty values as absent and keeps the first of repeated keys', () => {
    expect(parseListParams('flowId=&searchString=a&searchString=b')).toMatchObject({ flowId: undefined, searchString: 'a' });
  });
});

describe('applyListParams', () => {
  it('sets, removes and keeps parameters', () => {
    const next = applyListParams(new URLSearchParams('page=2&flowId=f_1&tab=keys'), { page: 3, flowId: undefined, sortDirection: 'ASC' });
    expect(next.toString()).toBe('page=3&tab=keys&sortDirection=ASC');
  });
});

function ListProbe() {
  const [params, setParams] = useListParams();
  return (
    <>
      <p>page {params.page}</p>
      <p>direction {params.sortDirection ?? 'none'}</p>
      <button type="button" onClick={() => setParams({ page: params.page + 1 })}>
        Next
      </button>
    </>
  );
}

describe('useListParams', () => {
  it("reads the URL's params and writes changes back", async () => {
    const { router, user } = renderRoutes([{ path: '/list', element: <ListProbe /> }], '/list?page=2&sortDirection=sideways');

    expect(await screen.findByText('page 2')).toBeInTheDocument();
    expect(screen.getByText('direction none')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Next' }));

    expect(screen.getByText('page 3')).toBeInTheDocument();
    expect(router.state.location.search).toBe('?page=3&sortDirection=sideways');
    await act(() => router.navigate('/list?page=-1&sortDirection=ASC'));
    expect(screen.getByText('page 1')).toBeInTheDocument();
    expect(screen.getByText('direction ASC')).toBeInTheDocument();
  });
});
