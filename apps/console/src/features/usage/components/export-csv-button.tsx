import { ExportCsvButton as ListExportButton } from '../../../components/export-csv-button';
import { type ChatCompletionsCsvRequest, downloadChatCompletionsCsv } from '../api/download-chat-completions-csv';

/** "Export CSV" of the calls the table shows (its key filter and order), with progress and Cancel. */
export function ExportCsvButton({ keyFilter, asc }: ChatCompletionsCsvRequest) {
  return <ListExportButton what="chat completions" download={(options) => downloadChatCompletionsCsv({ keyFilter, asc }, options)} />;
}
