import { type CsvDownloadOptions, type CsvFile, downloadCsv } from '../../../lib/download-csv';
import { keyFilterQuery, type UsageKeyFilter } from '../key-filter-params';

// GET /bff/chat-completions/export: the calls as CSV, streamed, with the row count in X-Total-Count.

export type ChatCompletionsCsvRequest = { keyFilter?: UsageKeyFilter; asc: boolean };

export const downloadChatCompletionsCsv = ({ keyFilter, asc }: ChatCompletionsCsvRequest, options?: CsvDownloadOptions): Promise<CsvFile> =>
  downloadCsv('/bff/chat-completions/export', { ...keyFilterQuery(keyFilter ?? {}), asc: String(asc) }, 'chat-completions.csv', options);
