import { Anchor, Box, Container, Group } from '@mantine/core';
import { Logo } from '@meterway/ui-kit';
import type { ReactNode } from 'react';

type PageShellProps = { consoleUrl: string; children: ReactNode };

/** The settings layout: a header with the logo and the way back to the console, then the page. */
export function PageShell({ consoleUrl, children }: PageShellProps) {
  return (
    <Box mih="100dvh" bg="gray.0">
      <Box component="header" bg="white" style={{ borderBottom: '1px solid var(--mantine-color-gray-3)' }}>
        <Container size={760} h={60}>
          <Group h="100%" justify="space-between" wrap="nowrap">
            <Logo size={26} />
            <Anchor href={`${consoleUrl}/dashboard`} size="sm" fw={500}>
              Back to console
            </Anchor>
          </Group>
        </Container>
      </Box>
      <Container component="main" size={760} pt={40} pb={64}>
        {children}
      </Container>
    </Box>
  );
}
