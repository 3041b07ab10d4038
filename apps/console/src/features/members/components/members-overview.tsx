import { Card, Stack, Text, Title } from '@mantine/core';
import { useMe } from '../../../lib/me';
import { loadMembersFailed, useMembers } from '../api/get-members';
import { InvitationsTable } from './invitations-table';
import { InviteForm } from './invite-form';
import { MembersTable } from './members-table';

/** The members page's body (issue #21): invite, the members with their roles, the pending invitations. */
export function MembersOverview() {
  const { data: me } = useMe();
  const { data, isError } = useMembers();
  const failure = isError ? loadMembersFailed : undefined;

  return (
    <Stack gap="xl">
      <Stack gap="sm">
        <Title order={2} size="h3">
          Invite a member
        </Title>
        <Card withBorder padding="lg">
          <Stack gap="sm">
            {/* Mantine's dimmed grey misses WCAG AA contrast on white. */}
            <Text size="sm" c="gray.7">
              We e-mail them a link that works for 7 days. Owners and admins manage members; developers manage keys; billing adds credits, opens invoices and
              manages alerts. Everyone sees the balance and the usage.
            </Text>
            <InviteForm />
          </Stack>
        </Card>
      </Stack>
      <Stack gap="sm">
        <Title order={2} size="h3">
          Members
        </Title>
        <MembersTable members={data?.members} failure={failure} currentEmail={me?.email} />
      </Stack>
      <Stack gap="sm">
        <Title order={2} size="h3">
          Pending invitations
        </Title>
        <InvitationsTable invitations={data?.invitations} failure={failure} />
      </Stack>
    </Stack>
  );
}
