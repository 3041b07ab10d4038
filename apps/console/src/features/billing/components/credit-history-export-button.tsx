import { ExportCsvButton } from '../../../components/export-csv-button';
import { downloadCreditHistoryCsv } from '../api/download-credit-history-csv';

/** "Export CSV" of the whole credit history, newest first as the table lists it. */
export function CreditHistoryExportButton() {
  return <ExportCsvButton what="the credit history" download={downloadCreditHistoryCsv} />;
}
