import { Button, Group, Modal } from '@mantine/core';
import type { PublishableKey } from '@meterway/contracts';
import { useState } from 'react';
import { ConfirmModal } from '../../../components/confirm-modal';
import { notifySuccess } from '../../../lib/notify';
import { useDeletePublishableKey } from '../api/delete-publishable-key';
import { useRollPublishableKey } from '../api/roll-publishable-key';
import { useSendKeyDeletionFeedback } from '../api/send-key-deletion-feedback';
import { useUpdatePublishableKey } from '../api/update-publishable-key';
import { keyFormValuesOf, keyInputOf } from '../key-form-schema';
import { KeyBlocksSection } from './key-blocks-section';
import { KeyForm, useKeyForm } from './key-form';
import { RollKeyModal } from './roll-key-modal';

type EditKeyModalProps = { publishableKey: PublishableKey; onClose: () => void };

/** Edits one key; Delete asks first and Roll key offers its overlap, each in place of this modal. */
export function EditKeyModal({ publishableKey: key, onClose }: EditKeyModalProps) {
  const form = useKeyForm(keyFormValuesOf(key));
  const updateKey = useUpdatePublishableKey();
  const deleteKey = useDeletePublishableKey();
  const sendFeedback = useSendKeyDeletionFeedback();
  const rollKey = useRollPublishableKey();
  const [confirming, setConfirming] = useState(false);
  const [rolling, setRolling] = useState(false);

  // The reason goes with the deletion (the audit log records it) and, as before, to feedback.
  const remove = (reason: string) =>
    deleteKey.mutate(
      { id: key.id, reason },
      {
        onSuccess: () => {
          if (reason) sendFeedback.mutate(reason);
          notifySuccess('Publishable key deleted');
          onClose();
        },
      },
    );

  return (
    <>
      <Modal opened={!confirming && !rolling} onClose={onClose} title="Edit publishable key" size="lg">
        <KeyForm
          form={form}
          submitLabel="Save"
          submitting={updateKey.isPending}
          worstCaseDailySpend={key.worstCaseDailySpend}
          onSubmit={(values) =>
            updateKey.mutate(
              { id: key.id, input: keyInputOf(values) },
              {
                onSuccess: () => {
                  notifySuccess('Publishable key updated');
                  onClose();
                },
              },
            )
          }
          secondaryAction={
            <Group gap="sm">
              {/* red.9: the theme's red.6 on white is 3.3:1, below WCAG AA. */}
              <Button variant="outline" color="red.9" onClick={() => setConfirming(true)}>
                Delete
              </Button>
              <Button variant="default" onClick={() => setRolling(true)}>
                Roll key
              </Button>
            </Group>
          }
        >
          <KeyBlocksSection publishableKeyId={key.id} kind="clientAddress" />
          <KeyBlocksSection publishableKeyId={key.id} kind="endUser" />
        </KeyForm>
      </Modal>
      <RollKeyModal
        kind="publishable"
        keyName={key.name}
        opened={rolling}
        onRoll={(overlapHours) => rollKey.mutate({ id: key.id, input: { overlapHours } })}
        rolling={rollKey.isPending}
        rolled={rollKey.data}
        onCancel={() => setRolling(false)}
        onDone={onClose}
      />
      <ConfirmModal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title="Delete Publishable Key"
        confirmLabel="Delete"
        confirmColor="red.9"
        loading={deleteKey.isPending}
        reasonLabel="Reason (optional)"
        onConfirm={remove}
      >
        {`Are you sure you want to delete the publishable key ${key.name}? This action cannot be undone.`}
      </ConfirmModal>
    </>
  );
}
