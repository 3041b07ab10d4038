import { Alert, Button } from '@mantine/core';
import { Link } from 'react-router';
import { paths } from '../../../config/paths';
import { ApiError } from '../../../lib/api-error';

const isForbidden = (error: unknown): boolean => error instanceof ApiError && error.status === 403;

/** For a signed-in person who is not a system admin; the api's 403 decides, the console only explains. */
export function NoAdminAccess() {
  return (
    <Alert color="gray" variant="light" title="You do not have access to the admin area">
      Only system administrators can see these pages.
      <Button component={Link} to={paths.dashboard.getHref()} variant="default" size="xs" mt="sm" display="block" w="fit-content">
        Back to dashboard
      </Button>
    </Alert>
  );
}

/** An admin list's renderError: the explanation for the api's 403, the list's usual retry for anything else. */
export const noAdminAccessFor = (error: unknown) => (isForbidden(error) ? <NoAdminAccess /> : undefined);
