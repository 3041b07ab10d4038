import { Anchor, Button, Code, Group, Stack, Text, Title } from '@mantine/core';
import type { SecretKey } from '@meterway/contracts';
import { useState } from 'react';
import { ConfirmModal } from '../../../components/confirm-modal';
import { runtimeConfig } from '../../../config/runtime-config';
import { notifySuccess } from '../../../lib/notify';
import { useDeleteSecretKey } from '../api/delete-secret-key';
import { loadSecretKeysFailed, useSecretKeys } from '../api/get-secret-keys';
import { useRollSecretKey } from '../api/roll-secret-key';
import { CreateSecretKeyModal } from './create-secret-key-modal';
import { EditSecretKeyModal } from './edit-secret-key-modal';
import { RollKeyModal } from './roll-key-modal';
import { type SecretKeyAction, SecretKeysTable } from './secret-keys-table';

/** The dashboard's secret keys (issue #23): what they are for, the table, and create, edit, roll and delete. */
export function SecretKeysSection() {
  const { data: secretKeys, isError } = useSecretKeys();
  const [creating, setCreating] = useState(false);
  const [open, setOpen] = useState<{ action: SecretKeyAction; key: SecretKey }>();
  const rollKey = useRollSecretKey();
  const deleteKey = useDeleteSecretKey();
  const close = () => {
    setOpen(undefined);
    rollKey.reset();
  };

  const remove = (key: SecretKey, reason: string) =>
    deleteKey.mutate(
      { id: key.id, reason },
      {
        onSuccess: () => {
          notifySuccess('Secret key deleted');
          close();
        },
      },
    );

  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={2} size="h3">
          Secret keys
        </Title>
        <Button onClick={() => setCreating(true)}>New secret key</Button>
      </Group>
      <Text size="sm">
        Secret keys are for your servers and never go in a web page: the gateway refuses a browser request that carries one. A gateway key calls chat
        completions; an admin key works on the developer API (<Code>/v1/organization/…</Code>, see the{' '}
        <Anchor href={runtimeConfig().docsUrl} target="_blank" rel="noopener noreferrer">
          docs
        </Anchor>
        ).
      </Text>
      <SecretKeysTable
        secretKeys={secretKeys}
        failure={isError ? loadSecretKeysFailed : undefined}
        onAction={(action, key) => setOpen({ action, key })}
        onCreate={() => setCreating(true)}
      />
      <CreateSecretKeyModal opened={creating} onClose={() => setCreating(false)} />
      {/* Each modal is rendered while open only, so the next key's starts afresh (its form, overlap or reason). */}
      {open?.action === 'edit' && <EditSecretKeyModal key={open.key.id} secretKey={open.key} onClose={close} />}
      {open?.action === 'roll' && (
        <RollKeyModal
          kind="secret"
          keyName={open.key.name}
          opened
          onRoll={(overlapHours) => rollKey.mutate({ id: open.key.id, input: { overlapHours } })}
          rolling={rollKey.isPending}
          rolled={rollKey.data}
          onCancel={close}
          onDone={close}
        />
      )}
      {open?.action === 'delete' && (
        <ConfirmModal
          opened
          onClose={close}
          title="Delete Secret Key"
          confirmLabel="Delete"
          confirmColor="red.9"
          loading={deleteKey.isPending}
          reasonLabel="Reason (optional)"
          onConfirm={(reason) => remove(open.key, reason)}
        >
          {`Are you sure you want to delete the secret key ${open.key.name}? This action cannot be undone.`}
        </ConfirmModal>
      )}
    </Stack>
  );
}
