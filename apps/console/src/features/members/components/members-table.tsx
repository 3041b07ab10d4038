import { Button, Checkbox, List, Select, Stack, Table, Text } from '@mantine/core';
import { type ListedMember, type MadeKey, type Role, roleSchema } from '@meterway/contracts';
import { useState } from 'react';
import { ConfirmModal } from '../../../components/confirm-modal';
import { formatDateTime } from '../../../lib/format';
import { notifySuccess } from '../../../lib/notify';
import { roleLabels, roleOptions } from '../../../lib/roles';
import { useRemoveMember } from '../api/remove-member';
import { useUpdateMemberRole } from '../api/update-member-role';
import { ListTable } from './list-table';

const columns = ['Email', 'Role', 'Joined', ''] as const;

type MembersTableProps = {
  /** Undefined while the list loads. */
  members: ListedMember[] | undefined;
  /** Shown instead of "Loading..." when the list could not be loaded. */
  failure?: string;
  /** The signed-in person's address, marked "(you)". */
  currentEmail: string | undefined;
};

/**
 * The organisation's members: each one's role, changed in place, and Remove, asked first, with
 * the keys the member made offered for deletion. The api keeps every organisation an owner and
 * says so (409) when a change would leave none.
 */
export function MembersTable({ members, failure, currentEmail }: MembersTableProps) {
  const [removing, setRemoving] = useState<ListedMember>();
  const [deleteKeys, setDeleteKeys] = useState(false);
  const removeMember = useRemoveMember();

  const startRemoving = (member: ListedMember | undefined) => {
    setDeleteKeys(false);
    setRemoving(member);
  };
  const remove = (member: ListedMember) =>
    removeMember.mutate(
      { personId: member.personId, deleteKeys },
      {
        onSuccess: () => {
          notifySuccess(deleteKeys ? `${member.email} removed, with the keys they made` : `${member.email} removed`);
          startRemoving(undefined);
        },
      },
    );

  return (
    <>
      <ListTable
        label="Members"
        columns={columns}
        rows={members}
        failure={failure}
        emptyText="No members found"
        renderRow={(member) => <MemberRow key={member.personId} member={member} you={member.email === currentEmail} onRemove={startRemoving} />}
      />
      <ConfirmModal
        opened={removing !== undefined}
        onClose={() => startRemoving(undefined)}
        title="Remove member"
        confirmLabel="Remove"
        confirmColor="red.9"
        loading={removeMember.isPending}
        onConfirm={() => removing && remove(removing)}
      >
        <Stack gap="sm">
          <Text size="sm">{`Remove ${removing?.email ?? ''} from the organisation? They lose access to its keys, usage and billing at once.`}</Text>
          {removing && removing.keysMade.length > 0 && <KeysMade keys={removing.keysMade} deleteKeys={deleteKeys} onChange={setDeleteKeys} />}
        </Stack>
      </ConfirmModal>
    </>
  );
}

const kindLabel = (key: MadeKey) => (key.kind === 'publishable' ? 'publishable key' : `secret key, ${key.scope === 'admin' ? 'Admin' : 'Gateway'} scope`);

/** The keys a member made, which they may have copied: kept working unless deleted with the removal. */
function KeysMade({ keys, deleteKeys, onChange }: { keys: MadeKey[]; deleteKeys: boolean; onChange: (deleteKeys: boolean) => void }) {
  return (
    <>
      <Text size="sm">{`They made ${keys.length === 1 ? 'this key' : `these ${keys.length} keys`}, and may have a copy:`}</Text>
      <List size="sm" aria-label="Keys they made">
        {keys.map((key) => (
          <List.Item key={key.id}>{`${key.name} (${kindLabel(key)})`}</List.Item>
        ))}
      </List>
      <Checkbox
        label={keys.length === 1 ? 'Delete this key too' : 'Delete these keys too'}
        checked={deleteKeys}
        onChange={(event) => onChange(event.currentTarget.checked)}
      />
      <Text size="sm" c="gray.7">
        Kept keys keep working (an admin key stops until someone rolls it) and are marked on Keys as made by a former member: roll them there to take them over.
      </Text>
    </>
  );
}

type MemberRowProps = { member: ListedMember; you: boolean; onRemove: (member: ListedMember) => void };

function MemberRow({ member, you, onRemove }: MemberRowProps) {
  const updateRole = useUpdateMemberRole();
  // What was chosen shows at once; the list's refetch then shows what the api kept.
  const role = updateRole.isPending ? updateRole.variables.role : member.role;

  const changeRole = (value: string | null) => {
    const parsed = roleSchema.safeParse(value);
    if (!parsed.success || parsed.data === member.role) return;
    const next: Role = parsed.data;
    updateRole.mutate({ personId: member.personId, role: next }, { onSuccess: () => notifySuccess(`${member.email} is now ${roleLabels[next]}`) });
  };

  return (
    <Table.Tr>
      <Table.Td style={{ overflowWrap: 'anywhere' }}>
        {member.email}
        {you && (
          <Text span size="sm" c="gray.7">
            {' '}
            (you)
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Select
          aria-label={`Role of ${member.email}`}
          data={roleOptions}
          value={role}
          onChange={changeRole}
          allowDeselect={false}
          disabled={updateRole.isPending}
          w={150}
        />
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(member.joinedAt)}</Table.Td>
      <Table.Td>
        {/* Oneself leaves from the avatar menu (Leave organisation), which says where one goes next. */}
        {!you && (
          // c="red.9": the theme's red.6 on white is 3.3:1, below WCAG AA, and the subtle variant turns color="red.9" back into red.6.
          <Button variant="subtle" color="red" c="red.9" size="compact-sm" aria-label={`Remove ${member.email}`} onClick={() => onRemove(member)}>
            Remove
          </Button>
        )}
      </Table.Td>
    </Table.Tr>
  );
}
