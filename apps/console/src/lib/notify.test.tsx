import { useMutation, useQuery } from '@tanstack/react-query';
import { act, screen, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { server } from '../testing/msw-server';
import { renderComponent } from '../testing/render';
import { ApiError, apiRequest } from './api-client';
import { logger } from './logger';
import { notifyError, notifySuccess } from './notify';

const api = 'http://localhost:8080';

/** The toast whose title is `title`; Mantine renders each as an alert. */
async function findToast(title: string): Promise<HTMLElement> {
  const heading = await screen.findByText(title);
  const toast = heading.closest<HTMLElement>('.mantine-Notification-root');
  if (!toast) throw new Error(`no toast around "${title}"`);
  return toast;
}

const toastColor = (toast: HTMLElement) => toast.style.getPropertyValue('--notification-color');

describe('notifyError', () => {
  it("shows a red 'Wooops!' toast with the error's message and logs the detail", async () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {});
    renderComponent(<p>page</p>);
    const error = new ApiError(503, 'Service Unavailable', { detail: 'identity is down' });

    act(() => notifyError(error));

    const toast = await findToast('Wooops!');
    expect(within(toast).getByText('Service Unavailable')).toBeInTheDocument();
    expect(toastColor(toast)).toContain('red');
    expect(warn).toHaveBeenCalledWith('Service Unavailable', expect.objectContaining({ status: 503, body: { detail: 'identity is down' } }));
  });

  it('logs through console.warn, never console.error', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    renderComponent(<p>page</p>);

    act(() => notifyError(new Error('ory.logout failed')));

    expect(warn).toHaveBeenCalledWith('ory.logout failed', expect.any(Error));
  });
});

describe('notifySuccess', () => {
  it("shows a teal 'Success!' toast with the message", async () => {
    renderComponent(<p>page</p>);

    act(() => notifySuccess('Publishable key deleted'));

    const toast = await findToast('Success!');
    expect(within(toast).getByText('Publishable key deleted')).toBeInTheDocument();
    expect(toastColor(toast)).toContain('teal');
  });

  it('shows toasts at the top center, below the top bar, not over the bottom-right buttons', async () => {
    renderComponent(<p>page</p>);

    act(() => notifySuccess('Alert settings saved'));

    const toast = await findToast('Success!');
    expect(toast.closest('[data-position]')).toHaveAttribute('data-position', 'top-center');
  });
});

function MeQuery({ silent }: { silent?: boolean }) {
  const query = useQuery({
    queryKey: ['me'],
    queryFn: ({ signal }) => apiRequest('/bff/me', { signal }),
    ...(silent ? { meta: { silent: true, errorMessage: 'Failed to load persons' } } : {}),
  });
  return <p>{query.status}</p>;
}

function DeleteKey() {
  const mutation = useMutation({
    mutationFn: () => apiRequest('/bff/publishable-keys/pk_1', { method: 'DELETE' }),
    meta: { errorMessage: 'Failed to delete publishable key' },
  });
  return (
    <button type="button" onClick={() => mutation.mutate()}>
      Delete
    </button>
  );
}

describe('failures of queries and mutations', () => {
  it("become a 'Wooops!' toast in one place, without the component doing anything", async () => {
    vi.spyOn(logger, 'warn').mockImplementation(() => {});
    server.use(http.get(`${api}/bff/me`, () => HttpResponse.json({}, { status: 500 })));
    renderComponent(<MeQuery />);

    expect(await screen.findByText('error')).toBeInTheDocument();
    const toast = await findToast('Wooops!');
    expect(within(toast).getByText('Internal Server Error')).toBeInTheDocument();
  });

  it('are only logged when the query is marked silent (list loads, spec §8)', async () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {});
    server.use(http.get(`${api}/bff/me`, () => HttpResponse.json({}, { status: 502 })));
    renderComponent(<MeQuery silent />);

    expect(await screen.findByText('error')).toBeInTheDocument();
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
    expect(warn).toHaveBeenCalledWith('Failed to load persons', expect.objectContaining({ status: 502 }));
  });

  it("show a mutation's own errorMessage when it gives one", async () => {
    vi.spyOn(logger, 'warn').mockImplementation(() => {});
    server.use(http.delete(`${api}/bff/publishable-keys/pk_1`, () => HttpResponse.json({}, { status: 404 })));
    const { user } = renderComponent(<DeleteKey />);

    await user.click(screen.getByRole('button', { name: 'Delete' }));

    const toast = await findToast('Wooops!');
    expect(within(toast).getByText('Failed to delete publishable key')).toBeInTheDocument();
  });
});
