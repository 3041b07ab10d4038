import { Button, Select, Table, Text } from '@mantine/core';
import { type Member, type Role, roleSchema } from '@meterway/contracts';
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
  members: Member[] | undefined;
  /** Shown instead of "Loading..." when the list could not be loaded. */
  failure?: string;
  /** The signed-in person's address, marked "(you)". */
  currentEmail: string | undefined;
};

/**
 * The organisation's members: each one's role, changed in place, and Remove, asked first. The
 * api keeps every organisation an owner and says so (409) when a change would leave none.
 */
export function MembersTable({ members, failure, currentEmail }: MembersTableProps) {
  const [removing, setRemoving] = useState<Member>();
  const removeMember = useRemoveMember();

  const remove = (member: Member) =>
    removeMember.mutate(member.personId, {
      onSuccess: () => {
        notifySuccess(`${member.email} removed`);
        setRemoving(undefined);
      },
    });

  return (
    <>
      <ListTable
        label="Members"
        columns={columns}
        rows={members}
        failure={failure}
        emptyText="No members found"
        renderRow={(member) => <MemberRow key={member.personId} member={member} you={member.email === currentEmail} onRemove={setRemoving} />}
      />
      <ConfirmModal
        opened={removing !== undefined}
        onClose={() => setRemoving(undefined)}
        title="Remove member"
        confirmLabel="Remove"
        confirmColor="red.9"
        loading={removeMember.isPending}
        onConfirm={() => removing && remove(removing)}
      >
        {`Remove ${removing?.email ?? ''} from the organisation? They lose access to its keys, usage and billing at once.`}
      </ConfirmModal>
    </>
  );
}

type MemberRowProps = { member: Member; you: boolean; onRemove: (member: Member) => void };

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
