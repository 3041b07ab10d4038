import { ConfirmModal } from '../../../components/confirm-modal';
import { notifySuccess } from '../../../lib/notify';
import { useLeaveOrganization } from '../api/leave-organization';
import { useEnterOrganization } from '../hooks/use-enter-organization';

type LeaveOrganizationModalProps = {
  opened: boolean;
  onClose: () => void;
  organization: { organizationId: string; organizationName: string };
};

/** Asks, then takes the person out of their current organisation (issue #21). */
export function LeaveOrganizationModal({ opened, onClose, organization }: LeaveOrganizationModalProps) {
  const leave = useLeaveOrganization();
  const enterOrganization = useEnterOrganization();

  const confirm = () =>
    leave.mutate(organization.organizationId, {
      onSuccess: (current) => {
        notifySuccess(`You left ${organization.organizationName}`);
        onClose();
        enterOrganization(current.organizationId);
      },
    });

  return (
    <ConfirmModal
      opened={opened}
      onClose={onClose}
      title="Leave organisation"
      confirmLabel="Leave"
      confirmColor="red.9"
      loading={leave.isPending}
      onConfirm={confirm}
    >
      {`Leave ${organization.organizationName}? You lose access to its keys, usage and billing until someone invites you again.`}
    </ConfirmModal>
  );
}
