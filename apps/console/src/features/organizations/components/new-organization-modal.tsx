import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { schemaResolver, useForm } from '@mantine/form';
import { organizationInputSchema } from '@meterway/contracts';
import { notifySuccess } from '../../../lib/notify';
import { useCreateOrganization } from '../api/create-organization';
import { useEnterOrganization } from '../hooks/use-enter-organization';

type NewOrganizationModalProps = { opened: boolean; onClose: () => void };

/** Names a new organisation, which the person owns and switches to (issue #21). */
export function NewOrganizationModal({ opened, onClose }: NewOrganizationModalProps) {
  const form = useForm({ initialValues: { name: '' }, validate: schemaResolver(organizationInputSchema, { sync: true }) });
  const create = useCreateOrganization();
  const enterOrganization = useEnterOrganization();

  const close = () => {
    if (create.isPending) return;
    form.reset();
    onClose();
  };

  const submit = ({ name }: { name: string }) => {
    const trimmed = name.trim();
    create.mutate(trimmed, {
      onSuccess: (created) => {
        notifySuccess(`Organisation ${trimmed} created`);
        form.reset();
        onClose();
        enterOrganization(created.organizationId);
      },
    });
  };

  return (
    <Modal opened={opened} onClose={close} title="New organisation">
      {/* noValidate: the messages come from the contract, not from the browser. */}
      <form noValidate onSubmit={form.onSubmit(submit)}>
        <Stack gap="md">
          <Text size="sm">You will be its owner, and it starts with no credit and no keys.</Text>
          <TextInput label="Name" placeholder="Analytical Engines" data-autofocus {...form.getInputProps('name')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close} disabled={create.isPending}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
