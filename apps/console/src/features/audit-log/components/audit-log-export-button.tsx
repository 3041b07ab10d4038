import { ExportCsvButton } from '../../../components/export-csv-button';
import { downloadAuditLogCsv } from '../api/download-audit-log-csv';
import type { AuditLogFilters } from '../api/get-audit-log';

/** "Export CSV" of the entries the filters choose, newest first as the table lists them. */
export function AuditLogExportButton(filters: AuditLogFilters) {
  return <ExportCsvButton what="the audit log" download={(options) => downloadAuditLogCsv(filters, options)} />;
}
