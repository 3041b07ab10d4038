import { Button, Group, Progress, Stack, Text } from '@mantine/core';
import { problemSchema } from '@meterway/contracts';
import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../../../lib/api-client';
import { errorMessage, notifyError } from '../../../lib/notify';
import { type ChatCompletionsCsvRequest, type CsvProgress, downloadChatCompletionsCsv } from '../api/download-chat-completions-csv';

/** The toast of a failed export: what the api said (its problem detail), else the error's own message. */
function failureMessage(error: unknown): string {
  const problem = error instanceof ApiError ? problemSchema.safeParse(error.body) : undefined;
  return `Failed to export chat completions: ${problem?.success ? problem.data.detail : errorMessage(error)}`;
}

function saveFile(blob: Blob, fileName: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked at once, some browsers would cancel the download the click has only just started.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

const percentOf = ({ rows, total }: CsvProgress) => (total ? Math.min(100, Math.floor((rows * 100) / total)) : 0);

/** "Export CSV" of the calls the table shows (its key filter and order), with progress and Cancel. */
export function ExportCsvButton({ publishableKeyId, asc }: ChatCompletionsCsvRequest) {
  const [progress, setProgress] = useState<CsvProgress>();
  const running = useRef<AbortController>(undefined);
  // Leaving the screen cancels the export.
  useEffect(() => () => running.current?.abort(), []);

  async function exportCsv() {
    const controller = new AbortController();
    running.current = controller;
    setProgress({ rows: 0, total: undefined });
    try {
      const { blob, fileName } = await downloadChatCompletionsCsv({ publishableKeyId, asc }, { signal: controller.signal, onProgress: setProgress });
      saveFile(blob, fileName);
    } catch (error) {
      // Cancelled on purpose: nothing to report.
      if (!controller.signal.aborted) notifyError(error, failureMessage(error));
    } finally {
      running.current = undefined;
      setProgress(undefined);
    }
  }

  if (!progress) {
    return (
      <Button variant="default" onClick={() => void exportCsv()}>
        Export CSV
      </Button>
    );
  }
  const percent = percentOf(progress);
  return (
    <Group gap="sm" wrap="nowrap">
      <Stack gap={4} w={200}>
        <Text size="sm">Exporting… {percent} %</Text>
        <Progress value={percent} aria-label="Export progress" />
      </Stack>
      <Button variant="default" onClick={() => running.current?.abort()}>
        Cancel
      </Button>
    </Group>
  );
}
