import { Button, Group, Modal, SegmentedControl, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { formatDateTime } from '../../../lib/format';
import { type KeyKind, keyKindTexts } from '../key-kind';
import { CreatedKeyView } from './created-key-view';

const overlaps = [
  { value: '0', label: 'Immediately' },
  { value: '1', label: '1 hour' },
  { value: '6', label: '6 hours' },
  { value: '12', label: '12 hours' },
  { value: '24', label: '24 hours' },
];

/** The answer to a roll: the key with its new value and, with an overlap, until when the old one works. */
export type RolledKey = { name: string; value?: string | undefined; previousValueExpiresAt?: string | undefined };

type RollKeyModalProps = {
  kind: KeyKind;
  /** The name of the key to roll. */
  keyName: string;
  opened: boolean;
  /** Sends the roll; the caller owns the mutation of its kind of key. */
  onRoll: (overlapHours: number) => void;
  rolling: boolean;
  /** Set once rolled: the new value is shown. */
  rolled: RolledKey | undefined;
  /** Back to the key, nothing rolled. */
  onCancel: () => void;
  /** After the new value was shown. */
  onDone: () => void;
};

/** Issues a new value for a key of either kind; the old one keeps working for the chosen overlap, then stops. */
export function RollKeyModal({ kind, keyName, opened, onRoll, rolling, rolled, onCancel, onDone }: RollKeyModalProps) {
  const [overlapHours, setOverlapHours] = useState('1');
  const texts = keyKindTexts[kind];

  return (
    <Modal opened={opened} onClose={rolled ? onDone : onCancel} title={`Roll ${texts.noun}`} size="lg">
      {rolled ? (
        <CreatedKeyView shownKey={{ name: rolled.name, value: rolled.value ?? '' }} kind={kind} onDone={onDone}>
          {`The new value of ${rolled.name} is ready. `}
          {rolled.previousValueExpiresAt
            ? `The old value keeps working until ${formatDateTime(rolled.previousValueExpiresAt)}, then stops.`
            : 'The old value has stopped working.'}
        </CreatedKeyView>
      ) : (
        <Stack gap="md">
          <Text size="sm">
            {`Rolling issues a new value for ${keyName}. ${texts.rollKeeps} Until the overlap ends, both values work, so you can deploy the new one; then the old value stops.`}
          </Text>
          <Text size="sm">If an earlier roll's old value still works, it stops at once.</Text>
          <Stack gap={4}>
            <Text size="sm" fw={500} id="roll-overlap-label">
              Old value keeps working
            </Text>
            <SegmentedControl aria-labelledby="roll-overlap-label" data={overlaps} value={overlapHours} onChange={setOverlapHours} fullWidth />
          </Stack>
          <Group justify="flex-end">
            <Button variant="default" onClick={onCancel} disabled={rolling}>
              Cancel
            </Button>
            <Button loading={rolling} onClick={() => onRoll(Number(overlapHours))}>
              Roll key
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
