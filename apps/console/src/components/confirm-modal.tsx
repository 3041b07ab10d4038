import { Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { type ReactNode, useState } from 'react';

type ConfirmModalProps = {
  opened: boolean;
  onClose: () => void;
  title: string;
  /** The question asked. */
  children: ReactNode;
  confirmLabel: string;
  /** e.g. 'red.9' for a destructive action (a shade with AA contrast for white text). */
  confirmColor?: string;
  /** While the confirmed action runs: the confirm button spins and the modal stays. */
  loading?: boolean;
  /** With a label, an optional reason textarea is shown; its trimmed text is passed to onConfirm. */
  reasonLabel?: string;
  onConfirm: (reason: string) => void;
};

/** A confirmation dialog (spec §4), optionally collecting a reason. */
export function ConfirmModal({ opened, onClose, title, children, confirmLabel, confirmColor, loading = false, reasonLabel, onConfirm }: ConfirmModalProps) {
  const [reason, setReason] = useState('');
  const close = () => {
    if (loading) return;
    setReason('');
    onClose();
  };

  return (
    // Mantine's close button has no accessible name of its own.
    <Modal opened={opened} onClose={close} title={title}>
      <Stack gap="md">
        {typeof children === 'string' ? <Text size="sm">{children}</Text> : children}
        {reasonLabel && <Textarea label={reasonLabel} rows={3} maxLength={5000} value={reason} onChange={(event) => setReason(event.currentTarget.value)} />}
        <Group justify="flex-end">
          <Button variant="default" onClick={close} disabled={loading}>
            Cancel
          </Button>
          <Button color={confirmColor} loading={loading} onClick={() => onConfirm(reason.trim())}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
