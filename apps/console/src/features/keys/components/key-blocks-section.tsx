import { Button, CloseButton, Fieldset, Group, Stack, Text, TextInput } from '@mantine/core';
import { type KeyBlock, keyBlockInputSchema, problemSchema } from '@meterway/contracts';
import { useState } from 'react';
import { ApiError } from '../../../lib/api-client';
import { notifySuccess } from '../../../lib/notify';
import { useCreateKeyBlock } from '../api/create-key-block';
import { useDeleteKeyBlock } from '../api/delete-key-block';
import { loadKeyBlocksFailed, useKeyBlocks } from '../api/get-key-blocks';

/**
 * Why the api refused a block, to show under the address: its message for the field (400) or its
 * detail (409: already blocked, or the key's maximum). Other failures only get the toast.
 */
function refusalOf(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || (error.status !== 400 && error.status !== 409)) return undefined;
  const problem = problemSchema.safeParse(error.body);
  if (!problem.success) return undefined;
  return problem.data.errors?.find((issue) => issue.field === 'clientAddress')?.message ?? problem.data.detail;
}

type KeyBlocksSectionProps = { publishableKeyId: string };

/**
 * The client addresses a key refuses (issue #18). Each block and unblock is its own request and
 * takes effect at once, apart from the key form's Save.
 */
export function KeyBlocksSection({ publishableKeyId }: KeyBlocksSectionProps) {
  const blocks = useKeyBlocks(publishableKeyId);
  const createBlock = useCreateKeyBlock();
  const [address, setAddress] = useState('');
  const [refusal, setRefusal] = useState<string>();

  const block = () => {
    // The api's own rule and message, so a mistyped address costs no request.
    const parsed = keyBlockInputSchema.safeParse({ clientAddress: address });
    if (!parsed.success) {
      setRefusal(parsed.error.issues[0]?.message);
      return;
    }
    createBlock.mutate(
      { publishableKeyId, input: parsed.data },
      {
        onSuccess: (created) => {
          setAddress('');
          setRefusal(undefined);
          notifySuccess(`${created.clientAddress} blocked`);
        },
        onError: (error) => setRefusal(refusalOf(error)),
      },
    );
  };

  return (
    <Fieldset legend="Blocked addresses" p="sm" styles={{ legend: { fontSize: 'var(--mantine-font-size-sm)', fontWeight: 500 } }}>
      <Stack gap="sm">
        {/* Mantine's dimmed grey misses WCAG AA contrast on white. */}
        <Text size="xs" c="gray.7">
          Calls with this key from these visitor addresses are refused; an IPv6 address blocks its /64. Blocking and unblocking apply at
          once, without Save.
        </Text>
        <BlockList publishableKeyId={publishableKeyId} blocks={blocks.data} failed={blocks.isError} />
        <Group gap="xs" align="flex-start" wrap="nowrap">
          <TextInput
            aria-label="Address to block"
            placeholder="IPv4 or IPv6 address"
            flex={1}
            value={address}
            error={refusal}
            onChange={(event) => {
              setAddress(event.currentTarget.value);
              setRefusal(undefined);
            }}
            // Inside the key form, Enter would otherwise submit the key; here it blocks the address.
            onKeyDown={(event) => {
              if (event.key !== 'Enter') return;
              event.preventDefault();
              block();
            }}
          />
          <Button type="button" variant="default" loading={createBlock.isPending} onClick={block}>
            Block
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}

type BlockListProps = { publishableKeyId: string; blocks: KeyBlock[] | undefined; failed: boolean };

function BlockList({ publishableKeyId, blocks, failed }: BlockListProps) {
  const deleteBlock = useDeleteKeyBlock();
  if (blocks === undefined) return <Text size="sm">{failed ? loadKeyBlocksFailed : 'Loading...'}</Text>;
  if (blocks.length === 0) return <Text size="sm">No address is blocked.</Text>;

  const unblock = ({ id, clientAddress }: KeyBlock) =>
    deleteBlock.mutate({ publishableKeyId, blockId: id }, { onSuccess: () => notifySuccess(`${clientAddress} unblocked`) });

  return (
    <Stack component="ul" gap={4} m={0} p={0} style={{ listStyle: 'none' }} aria-label="Blocked addresses">
      {blocks.map((entry) => (
        <Group component="li" key={entry.id} gap="xs" justify="space-between" wrap="nowrap">
          <Text ff="monospace" size="sm" style={{ overflowWrap: 'anywhere' }}>
            {entry.clientAddress}
          </Text>
          <CloseButton
            aria-label={`Unblock ${entry.clientAddress}`}
            disabled={deleteBlock.isPending && deleteBlock.variables.blockId === entry.id}
            onClick={() => unblock(entry)}
          />
        </Group>
      ))}
    </Stack>
  );
}
