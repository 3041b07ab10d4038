import { Button, Group, Stack, Title } from '@mantine/core';
import type { PublishableKey } from '@meterway/contracts';
import { useState } from 'react';
import { loadPublishableKeysFailed, usePublishableKeys } from '../api/get-publishable-keys';
import { CreateKeyModal } from './create-key-modal';
import { EditKeyModal } from './edit-key-modal';
import { KeyCallersModal } from './key-callers-modal';
import { PublishableKeysTable } from './publishable-keys-table';

/** The dashboard's keys: the table, New publishable key, the create and edit modals (spec §2) and a key's callers (issue #18). */
export function PublishableKeysSection() {
  const { data: publishableKeys, isError } = usePublishableKeys();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<PublishableKey>();
  const [viewingCallers, setViewingCallers] = useState<PublishableKey>();

  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={2} size="h3">
          Publishable keys
        </Title>
        <Button onClick={() => setCreating(true)}>New publishable key</Button>
      </Group>
      <PublishableKeysTable
        publishableKeys={publishableKeys}
        failure={isError ? loadPublishableKeysFailed : undefined}
        onOpen={setEditing}
        onCallers={setViewingCallers}
      />
      <CreateKeyModal opened={creating} onClose={() => setCreating(false)} />
      {/* Keyed by id: each key's form starts from that key's values. */}
      {editing && <EditKeyModal key={editing.id} publishableKey={editing} onClose={() => setEditing(undefined)} />}
      {viewingCallers && <KeyCallersModal key={viewingCallers.id} publishableKey={viewingCallers} onClose={() => setViewingCallers(undefined)} />}
    </Stack>
  );
}
