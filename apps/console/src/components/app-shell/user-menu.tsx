import { Avatar, Menu, UnstyledButton } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { paths } from '../../config/paths';
import { createSettingsUrl, identityTexts, logout } from '../../lib/identity-client';
import { notifyError } from '../../lib/notify';
import { browserLocation } from '../../lib/browser-location';
import classes from './top-bar.module.css';

type UserMenuProps = {
  email: string;
  systemAdmin: boolean;
  /** Send feedback lives in a feature; the screen that composes the shell opens it. */
  onSendFeedback: () => void;
};

/** The avatar menu of the top bar (spec §2): Admin, Settings, Send feedback, Log out. */
export function UserMenu({ email, systemAdmin, onSendFeedback }: UserMenuProps) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();

  const openSettings = async () => {
    try {
      browserLocation.assign(await createSettingsUrl());
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
        {systemAdmin && (
          <Menu.Item component={Link} to={paths.admin.getHref()}>
            Admin
          </Menu.Item>
        )}
        <Menu.Item onClick={openSettings}>Settings</Menu.Item>
        <Menu.Item onClick={onSendFeedback}>Send feedback</Menu.Item>
        <Menu.Divider />
        <Menu.Item onClick={logOut}>
          Log out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
