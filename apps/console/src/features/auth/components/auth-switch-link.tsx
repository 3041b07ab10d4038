import { Anchor, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';

type AuthSwitchLinkProps = {
  /** The question before the link, e.g. "Already have an account?"; none for a bare link. */
  prompt?: string;
  to: string;
  children: ReactNode;
};

/** The centred line under an auth card's form that leads to a neighbouring auth screen. */
export function AuthSwitchLink({ prompt, to, children }: AuthSwitchLinkProps) {
  return (
    <Text size="sm" c="dimmed" ta="center">
      {prompt && `${prompt} `}
      <Anchor component={Link} to={to} fw={500}>
        {children}
      </Anchor>
    </Text>
  );
}
