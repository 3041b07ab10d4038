import { Stack, Text, Title } from '@mantine/core';
import { PageContainer } from '../../components/page-container';
import { MembersOverview } from '../../features/members/components/members-overview';
import { useCan, useMe } from '../../lib/me';

// Issue #21: who belongs to the organisation, with which role, and who is invited; owners and admins only.
export function Component() {
  const { data: me } = useMe();
  const allowed = useCan('manageMembers');
  return (
    <PageContainer size="md">
      <title>Members · Meterway</title>
      <Stack gap="xl">
        <Stack gap={4}>
          <Title order={1}>Members</Title>
          <Text c="gray.7">{me?.organizationName}</Text>
        </Stack>
        {allowed ? <MembersOverview /> : <Text>Only owners and admins manage the members of an organisation.</Text>}
      </Stack>
    </PageContainer>
  );
}
