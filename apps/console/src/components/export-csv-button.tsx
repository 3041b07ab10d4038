import { Button, Group, Progress, Stack, Text } from '@mantine/core';
import { problemSchema } from '@meterway/contracts';
import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../lib/api-error';
import type { CsvDownloadOptions, CsvFile, CsvProgress } from '../lib/download-csv';
import { errorMessage, notifyError } from '../lib/notify';

/** The toast of a failed export: what the api said (its problem detail), else the error's own message. */
function failureMessage(what: string, error: unknown): string {
  const problem = error instanceof ApiError ? problemSchema.safeParse(error.body) : undefined;
  return `Failed to export ${what}: ${problem?.success ? problem.data.detail : errorMessage(error)}`;
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

type ExportCsvButtonProps = {
  /** What is exported, for the failure's toast: "chat completions". */
  what: string;
  /** Downloads the list as the screen shows it (its filters and order). */
  download: (options: CsvDownloadOptions) => Promise<CsvFile>;
};

/** "Export CSV" of a list (lib/download-csv), with progress and Cancel; the file is saved when complete. */
export function ExportCsvButton({ what, download }: ExportCsvButtonProps) {
  const [progress, setProgress] = useState<CsvProgress>();
  const running = useRef<AbortController>(undefined);
  // Leaving the screen cancels the export.
  useEffect(() => () => running.current?.abort(), []);

  async function exportCsv() {
    const controller = new AbortController();
    running.current = controller;
    setProgress({ rows: 0, total: undefined });
    try {
      const { blob, fileName } = await download({ signal: controller.signal, onProgress: setProgress });
      saveFile(blob, fileName);
    } catch (error) {
      // Cancelled on purpose: nothing to report.
      if (!controller.signal.aborted) notifyError(error, failureMessage(what, error));
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
