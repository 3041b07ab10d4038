import { Box, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { Logo } from './logo';
import type { ReactNode } from 'react';

type AuthCardProps = { title: string; description?: ReactNode; children: ReactNode; footer?: ReactNode };

/** The centred card of the sign-in screens: the console's public pages and identity's second factor. */
export function AuthCard({ title, description, children, footer }: AuthCardProps) {
  return (
    <Box component="main" mih="100dvh" bg="gray.0" px="md" pt="10vh" pb={48}>
      <Center>
        <Stack w="100%" maw={420} gap="xl">
          <Center>
            <Logo />
          </Center>
          <Paper withBorder shadow="sm" radius="md" p={32}>
            <Stack gap={4} mb="lg">
              <Title order={1} fz={22} fw={600}>
                {title}
              </Title>
              {description && (
                <Text size="sm" c="dimmed">
                  {description}
                </Text>
              )}
            </Stack>
            {children}
          </Paper>
          {footer}
        </Stack>
      </Center>
    </Box>
  );
}
