import { type CsvDownloadOptions, type CsvFile, downloadCsv } from '../../../lib/download-csv';
import type { AuditLogFilters } from './get-audit-log';

// GET /bff/audit-log/export (issue #21): the entries the filters choose, newest first, as CSV, streamed.

export const downloadAuditLogCsv = ({ actorEmail, action }: AuditLogFilters, options?: CsvDownloadOptions): Promise<CsvFile> =>
  downloadCsv('/bff/audit-log/export', { actorEmail: actorEmail || undefined, action, asc: 'false' }, 'audit-log.csv', options);
