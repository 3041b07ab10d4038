import { screen, waitFor } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { server } from '../../../testing/msw-server';
import { renderComponent } from '../../../testing/render';
import { testRuntimeConfig } from '../../../testing/runtime-config';
import { ExportCsvButton } from './export-csv-button';

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];
const keyId = '3a7c1a52-1f0e-4d5e-9a51-2f3c4b5d6e7f';
const header = 'ID,Created at,Model,Publishable key ID,Publishable key name,Total cost (USD)\r\n';
// Row 7's model holds a line break inside quotes: still one row.
const row = (i: number) => `cc-${i},2026-11-22T10:00:00.000Z,${i === 7 ? '"two\r\nlines"' : 'demo-small'},${keyId},Production,0.000617\r\n`;
const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => row(from + i)).join('');

/** The export as the api streams it: a chunk whenever the test says, ended when it says. */
function exportStream() {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (started) => void (controller = started) });
  const requests: Request[] = [];
  server.use(
    http.get(`${api}/bff/chat-completions/export`, ({ request }) => {
      requests.push(request);
      return new HttpResponse(body, {
        headers: {
          'Content-Type': 'text/csv; charset=utf-8',
          'Content-Disposition': 'attachment; filename="chat-completions-2026-11-22.csv"',
          'X-Total-Count': '100',
        },
      });
    }),
  );
  return { requests, send: (text: string) => controller.enqueue(encoder.encode(text)), end: () => controller.close() };
}

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

describe('ExportCsvButton', () => {
  it("shows the progress, then saves exactly what the api sent under the api's file name", async () => {
    const stream = exportStream();
    const { user } = renderComponent(<ExportCsvButton keyFilter={{ publishableKeyId: keyId }} asc={false} />);

    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    stream.send(header + rows(0, 30));
    stream.send(rows(30, 42));
    expect(await screen.findByText('Exporting… 42 %')).toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'Export progress' })).toHaveAttribute('aria-valuenow', '42');

    stream.send(rows(42, 100));
    stream.end();
    expect(await screen.findByRole('button', { name: 'Export CSV' })).toBeInTheDocument();
    expect(saved).toHaveLength(1);
    expect(saved[0]!.fileName).toBe('chat-completions-2026-11-22.csv');
    expect(await saved[0]!.blob.text()).toBe(header + rows(0, 100));

    const [request] = stream.requests;
    expect(request!.credentials).toBe('include');
    expect(Object.fromEntries(new URL(request!.url).searchParams)).toEqual({ publishableKeyId: keyId, asc: 'false' });
  });

  it('Cancel stops the download, saving nothing and reporting nothing', async () => {
    const stream = exportStream();
    const { user } = renderComponent(<ExportCsvButton asc />);

    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    stream.send(header + rows(0, 10));
    expect(await screen.findByText('Exporting… 10 %')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));

    expect(await screen.findByRole('button', { name: 'Export CSV' })).toBeInTheDocument();
    expect(stream.requests[0]!.signal.aborted).toBe(true);
    expect(Object.fromEntries(new URL(stream.requests[0]!.url).searchParams)).toEqual({ asc: 'true' });
    expect(saved).toEqual([]);
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
  });

  it.each([
    [400, 'asc: asc must be true or false'],
    [500, 'Something went wrong on our side. Try again later.'],
  ])("turns a %i into a toast with the api's words", async (status, detail) => {
    server.use(
      http.get(`${api}/bff/chat-completions/export`, () =>
        HttpResponse.json({ type: 'about:blank', title: 'Error', status, detail }, { status, headers: { 'Content-Type': 'application/problem+json' } }),
      ),
    );
    const { user } = renderComponent(<ExportCsvButton asc={false} />);

    await user.click(screen.getByRole('button', { name: 'Export CSV' }));

    expect(await screen.findByText('Wooops!')).toBeInTheDocument();
    expect(screen.getByText(`Failed to export chat completions: ${detail}`)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Export CSV' })).toBeEnabled());
    expect(saved).toEqual([]);
  });
});
