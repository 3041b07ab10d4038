import { Button, Group, Select, TextInput } from '@mantine/core';
import { schemaResolver, useForm } from '@mantine/form';
import { type InvitationInput, invitationInputSchema, roleSchema } from '@meterway/contracts';
import { notifySuccess } from '../../../lib/notify';
import { roleOptions } from '../../../lib/roles';
import { useCreateInvitation } from '../api/create-invitation';

const initialValues: InvitationInput = { email: '', role: 'developer' };

/** Invites an address with a role (issue #21); the contract's schema gives the messages (spec §5). */
export function InviteForm() {
  const form = useForm<InvitationInput>({ initialValues, validate: schemaResolver(invitationInputSchema, { sync: true }) });
  const invite = useCreateInvitation();

  const submit = (values: InvitationInput) => {
    const { email, role } = invitationInputSchema.parse(values);
    invite.mutate(
      { email, role },
      {
        onSuccess: () => {
          notifySuccess(`Invitation sent to ${email}`);
          form.reset();
        },
      },
    );
  };

  return (
    // noValidate: the messages come from the contract, not from the browser.
    <form noValidate onSubmit={form.onSubmit(submit)} aria-label="Invite a member">
      <Group align="flex-start" gap="sm">
        <TextInput
          label="E-mail"
          type="email"
          placeholder="name@example.com"
          autoComplete="off"
          style={{ flex: 1, minWidth: 220 }}
          {...form.getInputProps('email')}
        />
        <Select
          label="Role"
          data={roleOptions}
          allowDeselect={false}
          w={160}
          {...form.getInputProps('role')}
          onChange={(value) => {
            const parsed = roleSchema.safeParse(value);
            if (parsed.success) form.setFieldValue('role', parsed.data);
          }}
        />
        {/* Level with the inputs, below their labels. */}
        <Button type="submit" loading={invite.isPending} mt={25}>
          Invite
        </Button>
      </Group>
    </form>
  );
}
