import { Avatar, Box, Menu, Text, UnstyledButton } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { paths } from '../../config/paths';
import { createSettingsUrl, identityTexts, logout } from '../../lib/identity-client';
import { notifyError } from '../../lib/notify';
import { browserLocation } from '../../lib/browser-location';
import classes from './top-bar.module.css';

type UserMenuProps = {
  email: string;
  organizationName: string;
  systemAdmin: boolean;
  /** Send feedback lives in a feature; the screen that composes the shell opens it. */
  onSendFeedback: () => void;
};

/**
 * The avatar menu of the top bar (spec §2): Admin, Settings, Two-factor authentication, Send feedback,
 * Log out. On narrow screens, where the top bar has no room for them, it also names the user.
 */
export function UserMenu({ email, organizationName, systemAdmin, onSendFeedback }: UserMenuProps) {
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
    // No initial-focus placeholder: that empty focusable child breaks the menu role's allowed children (axe).
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
        {systemAdmin && (
          <Menu.Item component={Link} to={paths.admin.getHref()}>
            Admin
          </Menu.Item>
        )}
        <Menu.Item onClick={() => void openSettings()}>Settings</Menu.Item>
        <Menu.Item onClick={() => void openSettings('totp')}>Two-factor authentication</Menu.Item>
        <Menu.Item onClick={onSendFeedback}>Send feedback</Menu.Item>
        <Menu.Divider />
        <Menu.Item onClick={logOut}>Log out</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
