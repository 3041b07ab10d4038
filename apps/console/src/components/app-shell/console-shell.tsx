import { AppShell } from '@mantine/core';
import type { ReactNode } from 'react';
import classes from './top-bar.module.css';
import type { MenuActions, ShellUser } from './shell-types';
import { TopBar } from './top-bar';

/** Spec §2 and §9: the top bar is 55 px high. */
export const topBarHeight = 55;

type ConsoleShellProps = { user: ShellUser; menuActions: MenuActions; children: ReactNode };

/** The frame of every signed-in screen: the top bar, and below it a body that fills the rest. */
export function ConsoleShell({ user, menuActions, children }: ConsoleShellProps) {
  return (
    <AppShell header={{ height: topBarHeight }} padding={0}>
      <AppShell.Header className={classes.bar}>
        <TopBar user={user} menuActions={menuActions} />
      </AppShell.Header>
      <AppShell.Main display="flex" style={{ flexDirection: 'column' }}>
        {children}
      </AppShell.Main>
    </AppShell>
  );
}
