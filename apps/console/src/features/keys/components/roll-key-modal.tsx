import { Button, Group, Modal, SegmentedControl, Stack, Text } from '@mantine/core';
import type { PublishableKey } from '@meterway/contracts';
import { useState } from 'react';
import { formatDateTime } from '../../../lib/format';
import { useRollPublishableKey } from '../api/roll-publishable-key';
import { CreatedKeyView } from './created-key-view';

const overlaps = [
  { value: '0', label: 'Immediately' },
  { value: '1', label: '1 hour' },
  { value: '6', label: '6 hours' },
  { value: '12', label: '12 hours' },
  { value: '24', label: '24 hours' },
];

type RollKeyModalProps = {
  publishableKey: PublishableKey;
  opened: boolean;
  /** Back to the key, nothing rolled. */
  onCancel: () => void;
  /** After the new value was shown. */
  onDone: () => void;
};

/** Issues a new value for a key; the old one keeps working for the chosen overlap, then stops. */
export function RollKeyModal({ publishableKey: key, opened, onCancel, onDone }: RollKeyModalProps) {
  const rollKey = useRollPublishableKey();
  const [overlapHours, setOverlapHours] = useState('1');
  const rolled = rollKey.data;

  return (
    <Modal opened={opened} onClose={rolled ? onDone : onCancel} title="Roll publishable key" size="lg">
      {rolled ? (
        <CreatedKeyView publishableKey={rolled} onDone={onDone}>
          {`The new value of ${rolled.name} is ready. `}
          {rolled.previousValueExpiresAt
            ? `The old value keeps working until ${formatDateTime(rolled.previousValueExpiresAt)}, then stops.`
            : 'The old value has stopped working.'}
        </CreatedKeyView>
      ) : (
        <Stack gap="md">
          <Text size="sm">
            {`Rolling issues a new value for ${key.name}. Its name, budget, allowed domains and spend stay as they are. Until the overlap ends, both values work, so you can deploy the new one; then the old value stops.`}
          </Text>
          <Text size="sm">If an earlier roll's old value still works, it stops at once.</Text>
          <Stack gap={4}>
            <Text size="sm" fw={500} id="roll-overlap-label">
              Old value keeps working
            </Text>
            <SegmentedControl aria-labelledby="roll-overlap-label" data={overlaps} value={overlapHours} onChange={setOverlapHours} fullWidth />
          </Stack>
          <Group justify="flex-end">
            <Button variant="default" onClick={onCancel} disabled={rollKey.isPending}>
              Cancel
            </Button>
            <Button loading={rollKey.isPending} onClick={() => rollKey.mutate({ id: key.id, input: { overlapHours: Number(overlapHours) } })}>
              Roll key
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
