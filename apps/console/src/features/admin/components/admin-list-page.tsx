import { Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { PageContainer } from '../../../components/page-container';
import { AdminBreadcrumbs } from './admin-breadcrumbs';

/** An admin list screen: its tab title, the way back to the admin home, its heading, then the list. */
export function AdminListPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <PageContainer size="md">
      <title>{`${title} · Admin · Meterway`}</title>
      <Stack gap="md">
        <AdminBreadcrumbs current={title} />
        <Title order={1} fz={24}>
          {title}
        </Title>
        {children}
      </Stack>
    </PageContainer>
  );
}
