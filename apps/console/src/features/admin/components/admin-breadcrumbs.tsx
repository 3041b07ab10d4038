import { Anchor, Breadcrumbs, Text } from '@mantine/core';
import { Link } from 'react-router';
import { paths } from '../../../config/paths';

/** Admin › {current}: the way back to the admin home from a list (spec §2). */
export function AdminBreadcrumbs({ current }: { current: string }) {
  return (
    <nav aria-label="Breadcrumbs">
      <Breadcrumbs separator="›">
        <Anchor component={Link} to={paths.admin.getHref()} size="sm">
          Admin
        </Anchor>
        <Text size="sm" aria-current="page">
          {current}
        </Text>
      </Breadcrumbs>
    </nav>
  );
}
