import { Button, Group } from '@mantine/core';
import { Link } from 'react-router';
import { paths } from '../../../config/paths';

/** The admin home's way into its two lists (spec §2). */
export function AdminHomeLinks() {
  return (
    <Group gap="sm">
      <Button component={Link} to={paths.adminUsers.getHref()}>
        Users
      </Button>
      <Button component={Link} to={paths.adminFeedback.getHref()}>
        Feedback
      </Button>
    </Group>
  );
}
