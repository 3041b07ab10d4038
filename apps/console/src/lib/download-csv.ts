import { apiBaseUrl } from '../config/runtime-config';
import { ApiError } from './api-error';

// A BFF export (GET …/export): CSV, streamed, with the row count in X-Total-Count. The chat
// completions and the audit log export this way.

/** Rows received so far, of `total` (unknown if the api did not say). */
export type CsvProgress = { rows: number; total: number | undefined };

export type CsvFile = { blob: Blob; fileName: string };

export type CsvDownloadOptions = { signal?: AbortSignal; onProgress?: (progress: CsvProgress) => void };

const quote = 0x22;
const lineFeed = 0x0a;

/**
 * Counts the records that end in a chunk. A line break inside a quoted field (a model name, a key
 * name) is not the end of a record; a doubled quote toggles twice, so it changes nothing.
 */
function recordCounter() {
  let quoted = false;
  return (chunk: Uint8Array) => {
    let records = 0;
    for (const byte of chunk) {
      if (byte === quote) quoted = !quoted;
      else if (byte === lineFeed && !quoted) records++;
    }
    return records;
  };
}

async function refusal(response: Response): Promise<ApiError> {
  const text = await response.text();
  let body: unknown = text;
  try {
    if (/json/.test(response.headers.get('content-type') ?? '')) body = JSON.parse(text);
  } catch {
    // Not the JSON it claims to be: keep what was said.
  }
  return new ApiError(response.status, response.statusText, body);
}

/** `attachment; filename="chat-completions-2026-11-22.csv"` → the name. */
const fileNameOf = (disposition: string | null, fallback: string) => /filename="([^"]+)"/.exec(disposition ?? '')?.[1] ?? fallback;

/**
 * Streams the export at `path` into a Blob, telling `onProgress` after each chunk; `query` values
 * left undefined are not sent, and `fallbackFileName` names a file the api did not. Rejects with
 * ApiError for a refusal (the problem details in `body`), with the signal's reason (an AbortError)
 * when `signal` aborts, and with a TypeError when the connection breaks mid-way.
 */
export async function downloadCsv(
  path: string,
  query: Readonly<Record<string, string | undefined>>,
  fallbackFileName: string,
  { signal, onProgress }: CsvDownloadOptions = {},
): Promise<CsvFile> {
  // Appended, as api-client does, so an API URL with a path keeps it.
  const url = new URL(`${apiBaseUrl().replace(/\/+$/, '')}${path}`);
  for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value);
  const response = await fetch(url, { credentials: 'include', headers: { Accept: 'text/csv, application/problem+json' }, signal });
  if (!response.ok || !response.body) throw await refusal(response);

  const totalHeader = response.headers.get('x-total-count');
  const total = totalHeader === null ? undefined : Number(totalHeader);
  const countRecords = recordCounter();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  // The first record is the header line.
  let records = 0;
  const reader = response.body.getReader();
  // Not every body a fetch hands back ends its pending read on abort; cancelling it does.
  const cancel = () => void reader.cancel(signal?.reason);
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      chunks.push(read.value);
      records += countRecords(read.value);
      onProgress?.({ rows: Math.max(0, records - 1), total });
    }
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
  // A cancelled read ends like a finished one: a partial file is no file.
  signal?.throwIfAborted();
  return { blob: new Blob(chunks, { type: 'text/csv' }), fileName: fileNameOf(response.headers.get('content-disposition'), fallbackFileName) };
}
