import { Stack, Text, Title } from '@mantine/core';
import { PageContainer } from '../../components/page-container';
import { AdminHomeLinks } from '../../features/admin/components/admin-home-links';
import { NoAdminAccess } from '../../features/admin/components/no-admin-access';
import { useMe } from '../../lib/me';

export function Component() {
  // The shell has loaded the current user already; this reads it from the cache.
  const me = useMe();
  return (
    <PageContainer size="md">
      <title>Admin · Meterway</title>
      <Stack gap="md">
        <Title order={1} fz={24}>
          Admin
        </Title>
        {me.data?.systemAdmin === false ? (
          <NoAdminAccess />
        ) : (
          <>
            <Text c="dimmed">Every user and all submitted feedback, across organisations.</Text>
            <AdminHomeLinks />
          </>
        )}
      </Stack>
    </PageContainer>
  );
}
