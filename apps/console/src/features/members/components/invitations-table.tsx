import { Button, Group, Table } from '@mantine/core';
import type { Invitation } from '@meterway/contracts';
import { useState } from 'react';
import { ConfirmModal } from '../../../components/confirm-modal';
import { formatDateTime } from '../../../lib/format';
import { notifySuccess } from '../../../lib/notify';
import { roleLabels } from '../../../lib/roles';
import { useResendInvitation } from '../api/resend-invitation';
import { useRevokeInvitation } from '../api/revoke-invitation';
import { ListTable } from './list-table';

const columns = ['Email', 'Role', 'Expires', ''] as const;

type InvitationsTableProps = {
  /** Undefined while the list loads. */
  invitations: Invitation[] | undefined;
  /** Shown instead of "Loading..." when the list could not be loaded. */
  failure?: string;
};

/** The invitations not yet accepted: Resend mails the link again, Revoke (asked first) stops it working. */
export function InvitationsTable({ invitations, failure }: InvitationsTableProps) {
  const [revoking, setRevoking] = useState<Invitation>();
  const revokeInvitation = useRevokeInvitation();

  const revoke = (invitation: Invitation) =>
    revokeInvitation.mutate(invitation.invitationId, {
      onSuccess: () => {
        notifySuccess(`Invitation for ${invitation.email} revoked`);
        setRevoking(undefined);
      },
    });

  return (
    <>
      <ListTable
        label="Pending invitations"
        columns={columns}
        rows={invitations}
        failure={failure}
        emptyText="No pending invitations"
        renderRow={(invitation) => <InvitationRow key={invitation.invitationId} invitation={invitation} onRevoke={setRevoking} />}
      />
      <ConfirmModal
        opened={revoking !== undefined}
        onClose={() => setRevoking(undefined)}
        title="Revoke invitation"
        confirmLabel="Revoke"
        confirmColor="red.9"
        loading={revokeInvitation.isPending}
        onConfirm={() => revoking && revoke(revoking)}
      >
        {`Revoke the invitation for ${revoking?.email ?? ''}? The link they were mailed stops working.`}
      </ConfirmModal>
    </>
  );
}

function InvitationRow({ invitation, onRevoke }: { invitation: Invitation; onRevoke: (invitation: Invitation) => void }) {
  const resend = useResendInvitation();
  return (
    <Table.Tr>
      <Table.Td style={{ overflowWrap: 'anywhere' }}>{invitation.email}</Table.Td>
      <Table.Td>{roleLabels[invitation.role]}</Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(invitation.expiresAt)}</Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <Button
            variant="subtle"
            size="compact-sm"
            loading={resend.isPending}
            aria-label={`Resend invitation for ${invitation.email}`}
            onClick={() => resend.mutate(invitation.invitationId, { onSuccess: () => notifySuccess(`Invitation resent to ${invitation.email}`) })}
          >
            Resend
          </Button>
          {/* c="red.9": the theme's red.6 on white is 3.3:1, below WCAG AA, and the subtle variant turns color="red.9" back into red.6. */}
          <Button
            variant="subtle"
            color="red"
            c="red.9"
            size="compact-sm"
            aria-label={`Revoke invitation for ${invitation.email}`}
            onClick={() => onRevoke(invitation)}
          >
            Revoke
          </Button>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}
