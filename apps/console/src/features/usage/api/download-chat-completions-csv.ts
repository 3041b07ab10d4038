import { type CsvDownloadOptions, type CsvFile, downloadCsv } from '../../../lib/download-csv';

// GET /bff/chat-completions/export: the calls as CSV, streamed, with the row count in X-Total-Count.

export type ChatCompletionsCsvRequest = { publishableKeyId?: string | undefined; asc: boolean };

export const downloadChatCompletionsCsv = ({ publishableKeyId, asc }: ChatCompletionsCsvRequest, options?: CsvDownloadOptions): Promise<CsvFile> =>
  downloadCsv('/bff/chat-completions/export', { publishableKeyId: publishableKeyId || undefined, asc: String(asc) }, 'chat-completions.csv', options);
