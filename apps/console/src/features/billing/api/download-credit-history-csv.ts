import { type CsvDownloadOptions, type CsvFile, downloadCsv } from '../../../lib/download-csv';

// GET /bff/credit-history/export (issue #22): the whole credit history, newest first, as CSV, streamed.

export const downloadCreditHistoryCsv = (options?: CsvDownloadOptions): Promise<CsvFile> =>
  downloadCsv('/bff/credit-history/export', { asc: 'false' }, 'credit-history.csv', options);
