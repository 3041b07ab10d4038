import { Box, Group, Stack, Text } from '@mantine/core';
import { can } from '@meterway/contracts';
import { Logo } from '@meterway/ui-kit';
import { Link, useLocation } from 'react-router';
import { paths } from '../../config/paths';
import { runtimeConfig } from '../../config/runtime-config';
import type { MenuActions, ShellUser } from './shell-types';
import classes from './top-bar.module.css';
import { UserMenu } from './user-menu';

type TopBarProps = { user: ShellUser; menuActions: MenuActions };

/** The blue top bar of every signed-in screen (spec §2): Models for everyone (issue #24), Webhooks for the roles that manage them (issue #23). */
export function TopBar({ user, menuActions }: TopBarProps) {
  const { pathname } = useLocation();
  const chatCompletionsActive = pathname.startsWith(paths.chatCompletions.path);
  const modelsActive = pathname.startsWith(paths.models.path);
  const webhooksActive = pathname.startsWith(paths.webhooks.path);

  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="md">
      <Group h="100%" gap="md" wrap="nowrap">
        <Box component={Link} to={paths.dashboard.getHref()} aria-label="Meterway dashboard" className={classes.link}>
          {/* On phones the mark alone, so Chat completions keeps to one line. */}
          <Logo size={28} color="var(--mantine-color-blue-9)" wordmarkFrom="xs" />
        </Box>
        <Box component="nav" aria-label="Main" h="100%">
          <Group h="100%" gap={0} wrap="nowrap">
            <Link to={paths.chatCompletions.getHref()} className={classes.link} aria-current={chatCompletionsActive ? 'page' : undefined}>
              Chat completions
            </Link>
            <Link to={paths.models.getHref()} className={classes.link} aria-current={modelsActive ? 'page' : undefined}>
              Models
            </Link>
            {/* Issue #23: for the roles that manage webhook endpoints. */}
            {can(user.role, 'manageWebhooks') && (
              <Link to={paths.webhooks.getHref()} className={classes.link} aria-current={webhooksActive ? 'page' : undefined}>
                Webhooks
              </Link>
            )}
            <a href={runtimeConfig().docsUrl} target="_blank" rel="noopener noreferrer" className={classes.link}>
              Docs
            </a>
          </Group>
        </Box>
      </Group>
      <Group gap="sm" wrap="nowrap">
        <Stack gap={0} align="flex-end" visibleFrom="sm">
          <Text size="sm" fw={600} c="white" lh={1.3}>
            {user.email}
          </Text>
          <Text size="xs" c="white" lh={1.3}>
            {user.organizationName}
          </Text>
        </Stack>
        <UserMenu user={user} actions={menuActions} />
      </Group>
    </Group>
  );
}
