import { Avatar, Box, CheckIcon, Menu, Text, UnstyledButton } from '@mantine/core';
import { can } from '@meterway/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { paths } from '../../config/paths';
import { createSettingsUrl, identityTexts, logout } from '../../lib/identity-client';
import { notifyError } from '../../lib/notify';
import { browserLocation } from '../../lib/browser-location';
import { roleLabels } from '../../lib/roles';
import type { MenuActions, ShellUser } from './shell-types';
import classes from './top-bar.module.css';

type UserMenuProps = { user: ShellUser; actions: MenuActions };

/**
 * The avatar menu of the top bar (spec §2): the person's organisations to switch between, New
 * organisation and Leave organisation (issue #21); Members and Audit log for the roles that manage
 * members; Admin, Settings, Two-factor authentication, Send feedback, Log out. On narrow screens,
 * where the top bar has no room for them, it also names the user.
 */
export function UserMenu({ user, actions }: UserMenuProps) {
  const { email, organizationName, organizationId, organizations, role, systemAdmin } = user;
  const navigate = useNavigate();
  const queryClient = useQueryClient();

  const openSettings = async (anchor?: 'totp') => {
    try {
      browserLocation.assign(await createSettingsUrl(anchor));
    } catch (error) {
      notifyError(error, identityTexts.settingsFlowFailed);
    }
  };

  const logOut = async () => {
    try {
      await logout();
    } catch (error) {
      notifyError(error);
      return;
    }
    // Cleared before leaving, so no screen reads the previous user's cached data.
    queryClient.clear();
    await navigate(paths.login.getHref(), { replace: true });
  };

  return (
    // Spec §3: the avatar menu is 200 px wide. No initial-focus placeholder: that empty focusable child breaks the menu role's allowed children (axe).
    <Menu width={200} position="bottom-end" shadow="md" withInitialFocusPlaceholder={false}>
      <Menu.Target>
        <UnstyledButton className={classes.avatarButton} aria-label="Account menu">
          <Avatar color="blue.9" variant="white" radius="xl" size={34}>
            {email.charAt(0).toUpperCase()}
          </Avatar>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Box hiddenFrom="sm" data-testid="menu-identity">
          <Menu.Label>
            <Text size="sm" fw={600} c="dark" className={classes.menuIdentity}>
              {email}
            </Text>
            <Text size="xs" className={classes.menuIdentity}>
              {organizationName}
            </Text>
          </Menu.Label>
          <Menu.Divider />
        </Box>
        <Menu.Label>Organisations</Menu.Label>
        {organizations.map((organization) => {
          const current = organization.organizationId === organizationId;
          return (
            <Menu.Item
              key={organization.organizationId}
              aria-current={current ? 'true' : undefined}
              leftSection={current ? <CheckIcon size={10} /> : <Box w={10} />}
              className={classes.menuIdentity}
              onClick={() => {
                if (!current) actions.switchOrganization(organization.organizationId);
              }}
            >
              {/* The role is part of the visible text, so the item's name is what it shows (axe: label-content-name-mismatch). */}
              {organization.organizationName}{' '}
              <Text span size="xs" c="gray.7">
                ({roleLabels[organization.role]})
              </Text>
            </Menu.Item>
          );
        })}
        <Menu.Item onClick={actions.newOrganization}>New organisation</Menu.Item>
        {/* Leaving the only organisation would leave the person nowhere to be. */}
        {organizations.length > 1 && <Menu.Item onClick={actions.leaveOrganization}>Leave organisation</Menu.Item>}
        <Menu.Divider />
        {can(role, 'manageMembers') && (
          <>
            <Menu.Item component={Link} to={paths.members.getHref()}>
              Members
            </Menu.Item>
            <Menu.Item component={Link} to={paths.auditLog.getHref()}>
              Audit log
            </Menu.Item>
          </>
        )}
        {systemAdmin && (
          <Menu.Item component={Link} to={paths.admin.getHref()}>
            Admin
          </Menu.Item>
        )}
        <Menu.Item onClick={() => void openSettings()}>Settings</Menu.Item>
        <Menu.Item onClick={() => void openSettings('totp')}>Two-factor authentication</Menu.Item>
        <Menu.Item onClick={actions.sendFeedback}>Send feedback</Menu.Item>
        <Menu.Divider />
        <Menu.Item onClick={logOut}>Log out</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
