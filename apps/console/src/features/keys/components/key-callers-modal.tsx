import { Modal, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import type { KeyBlockInput, PublishableKey } from '@meterway/contracts';
import { useState } from 'react';
import { formatDateTime } from '../../../lib/format';
import { notifySuccess } from '../../../lib/notify';
import { type BlockKind, useCreateKeyBlock } from '../api/create-key-block';
import { loadKeyCallersFailed, useKeyCallers } from '../api/get-key-callers';
import { type CallersOrder, CallersTable } from './callers-table';

type KeyCallersModalProps = { publishableKey: PublishableKey; onClose: () => void };

/**
 * Who called a key in the last 24 hours (issue #18): its top client addresses and end users with
 * calls and spend, and Block for each; a block refetches the callers, so the row then says Blocked.
 */
export function KeyCallersModal({ publishableKey: key, onClose }: KeyCallersModalProps) {
  const callers = useKeyCallers(key.id);
  const [order, setOrder] = useState<CallersOrder>('spend');
  const blockAddress = useBlockCaller(key.id, 'clientAddress');
  const blockEndUser = useBlockCaller(key.id, 'endUser');

  return (
    <Modal opened onClose={onClose} title={`Callers of ${key.name}`} size="lg">
      {callers.data === undefined ? (
        <Text size="sm">{callers.isError ? loadKeyCallersFailed : 'Loading...'}</Text>
      ) : (
        <Stack gap="md">
          {/* Mantine's dimmed grey misses WCAG AA contrast on white. */}
          <Text size="sm" c="gray.7">{`Callers in the last 24 hours, since ${formatDateTime(callers.data.since)}.`}</Text>
          <SegmentedControl
            aria-label="Order callers by"
            size="xs"
            value={order}
            onChange={(value) => setOrder(value as CallersOrder)}
            data={[
              { value: 'spend', label: 'Highest spend first' },
              { value: 'calls', label: 'Most calls first' },
            ]}
          />
          <Title order={3} size="h5">
            Client addresses
          </Title>
          <CallersTable
            label="Client addresses"
            callerHeader="Client address"
            rows={callers.data.clientAddresses.map(({ clientAddress, ...totals }) => ({ caller: clientAddress, ...totals }))}
            order={order}
            emptyText="No client address called this key in the last 24 hours."
            blocking={blockAddress.blocking}
            onBlock={blockAddress.block}
          />
          <Title order={3} size="h5">
            End users
          </Title>
          <CallersTable
            label="End users"
            callerHeader="End user"
            rows={callers.data.endUsers.map(({ endUser, ...totals }) => ({ caller: endUser, ...totals }))}
            order={order}
            emptyText="No end user called this key in the last 24 hours."
            blocking={blockEndUser.blocking}
            onBlock={blockEndUser.block}
          />
        </Stack>
      )}
    </Modal>
  );
}

/** Blocks one caller of a kind; `blocking` names the caller while its request runs. */
function useBlockCaller(publishableKeyId: string, kind: BlockKind) {
  const createBlock = useCreateKeyBlock(kind);
  const [caller, setCaller] = useState<string>();
  const block = (chosen: string) => {
    setCaller(chosen);
    const input: KeyBlockInput = kind === 'clientAddress' ? { clientAddress: chosen } : { endUser: chosen };
    createBlock.mutate({ publishableKeyId, input }, { onSuccess: () => notifySuccess(`${chosen} blocked`) });
  };
  return { block, blocking: createBlock.isPending ? caller : undefined };
}
