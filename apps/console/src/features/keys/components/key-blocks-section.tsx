import { Button, CloseButton, Fieldset, Group, Stack, Text, TextInput } from '@mantine/core';
import { type KeyBlock, keyBlockInputSchema, problemSchema } from '@meterway/contracts';
import { useState } from 'react';
import { ApiError } from '../../../lib/api-client';
import { notifySuccess } from '../../../lib/notify';
import { type BlockKind, useCreateKeyBlock } from '../api/create-key-block';
import { useDeleteKeyBlock } from '../api/delete-key-block';
import { loadKeyBlocksFailed, useKeyBlocks } from '../api/get-key-blocks';
import { fieldsetStyles } from './cap-input';

const kinds = {
  clientAddress: {
    legend: 'Blocked addresses',
    help: 'Calls with this key from these visitor addresses are refused; an IPv6 address blocks its /64.',
    inputLabel: 'Address to block',
    placeholder: 'IPv4 or IPv6 address',
    none: 'No address is blocked.',
    parse: (value: string) => keyBlockInputSchema.safeParse({ clientAddress: value }),
  },
  endUser: {
    legend: 'Blocked end users',
    help: 'Calls with this key from these end users (the sub of their sign-in token) are refused.',
    inputLabel: 'End user to block',
    placeholder: 'End user id (sub)',
    none: 'No end user is blocked.',
    parse: (value: string) => keyBlockInputSchema.safeParse({ endUser: value }),
  },
} as const;

/** The address or end user a block names. */
export const blockedCallerOf = (block: KeyBlock): string => block.clientAddress ?? block.endUser ?? '';

/**
 * Why the api refused a block, to show under the field: its message for the field (400) or its
 * detail (409: already blocked, or the key's maximum). Other failures only get the toast.
 */
export function blockRefusalOf(error: unknown, kind: BlockKind): string | undefined {
  if (!(error instanceof ApiError) || (error.status !== 400 && error.status !== 409)) return undefined;
  const problem = problemSchema.safeParse(error.body);
  if (!problem.success) return undefined;
  return problem.data.errors?.find((issue) => issue.field === kind)?.message ?? problem.data.detail;
}

type KeyBlocksSectionProps = { publishableKeyId: string; kind: BlockKind };

/**
 * The client addresses, or the end users, a key refuses (issue #18). Each block and unblock is its
 * own request and takes effect at once, apart from the key form's Save.
 */
export function KeyBlocksSection({ publishableKeyId, kind }: KeyBlocksSectionProps) {
  const texts = kinds[kind];
  const blocks = useKeyBlocks(publishableKeyId);
  const createBlock = useCreateKeyBlock(kind);
  const [value, setValue] = useState('');
  const [refusal, setRefusal] = useState<string>();

  const block = () => {
    // The api's own rule and message, so a mistyped entry costs no request.
    const parsed = texts.parse(value);
    if (!parsed.success) {
      setRefusal(parsed.error.issues[0]?.message);
      return;
    }
    createBlock.mutate(
      { publishableKeyId, input: parsed.data },
      {
        onSuccess: (created) => {
          setValue('');
          setRefusal(undefined);
          notifySuccess(`${blockedCallerOf(created)} blocked`);
        },
        onError: (error) => setRefusal(blockRefusalOf(error, kind)),
      },
    );
  };

  return (
    <Fieldset legend={texts.legend} p="sm" styles={fieldsetStyles}>
      <Stack gap="sm">
        {/* Mantine's dimmed grey misses WCAG AA contrast on white. */}
        <Text size="xs" c="gray.7">
          {`${texts.help} Blocking and unblocking apply at once, without Save.`}
        </Text>
        <BlockList publishableKeyId={publishableKeyId} kind={kind} blocks={blocks.data?.filter((entry) => entry[kind] !== undefined)} failed={blocks.isError} />
        <Group gap="xs" align="flex-start" wrap="nowrap">
          <TextInput
            aria-label={texts.inputLabel}
            placeholder={texts.placeholder}
            flex={1}
            value={value}
            error={refusal}
            onChange={(event) => {
              setValue(event.currentTarget.value);
              setRefusal(undefined);
            }}
            // Inside the key form, Enter would otherwise submit the key; here it blocks.
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

type BlockListProps = { publishableKeyId: string; kind: BlockKind; blocks: KeyBlock[] | undefined; failed: boolean };

function BlockList({ publishableKeyId, kind, blocks, failed }: BlockListProps) {
  const deleteBlock = useDeleteKeyBlock(kind);
  if (blocks === undefined) return <Text size="sm">{failed ? loadKeyBlocksFailed : 'Loading...'}</Text>;
  if (blocks.length === 0) return <Text size="sm">{kinds[kind].none}</Text>;

  const unblock = (entry: KeyBlock) =>
    deleteBlock.mutate({ publishableKeyId, blockId: entry.id }, { onSuccess: () => notifySuccess(`${blockedCallerOf(entry)} unblocked`) });

  return (
    <Stack component="ul" gap={4} m={0} p={0} style={{ listStyle: 'none' }} aria-label={kinds[kind].legend}>
      {blocks.map((entry) => (
        <Group component="li" key={entry.id} gap="xs" justify="space-between" wrap="nowrap">
          <Text ff="monospace" size="sm" style={{ overflowWrap: 'anywhere' }}>
            {blockedCallerOf(entry)}
          </Text>
          <CloseButton
            aria-label={`Unblock ${blockedCallerOf(entry)}`}
            disabled={deleteBlock.isPending && deleteBlock.variables.blockId === entry.id}
            onClick={() => unblock(entry)}
          />
        </Group>
      ))}
    </Stack>
  );
}
