import { Alert, Badge, Card, Flex, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { UiNode, UiText } from '@ory/client-fetch';
import type { ReactNode } from 'react';
import { findNode, type FormValues, isHidden, isSubmit, nodeKey } from '../lib/ui-nodes';
import { FlowForm } from './flow-form';
import { FlowMessages } from './flow-messages';
import { FlowNode, FlowNodes } from './flow-nodes';

type SettingsCardProps = {
  group: string;
  /** The nodes of this group only. */
  nodes: readonly UiNode[];
  /** The flow's messages when they answer this card's last submit. */
  messages?: readonly UiText[];
  /** A failure the flow could not carry (no answer, an unexpected status). */
  notice?: string;
  onSubmit: (values: FormValues, submitter: UiNode | undefined) => Promise<void>;
};

/**
 * One settings method (identity-protocol.md §15): a card per node group, its own form, so it
 * submits only its own fields. `id={group}` makes /ui/settings#totp land on the TOTP card.
 */
export function SettingsCard({ group, nodes, messages, notice, onSubmit }: SettingsCardProps) {
  const copy = cardCopy(group, nodes);
  const buttons = nodes.filter(isSubmit);
  return (
    <Card
      id={group}
      component="section"
      aria-labelledby={`${group}-title`}
      data-testid={`ory/screen/settings/group/${group}`}
      withBorder
      radius="md"
      padding={0}
      style={{ overflow: 'hidden', scrollMarginTop: 24 }}
    >
      <FlowForm nodes={nodes} onSubmit={onSubmit}>
        <Stack p="lg" gap="lg">
          <Stack gap={4}>
            <Group justify="space-between" wrap="nowrap">
              <Title order={2} fz={18} fw={600} id={`${group}-title`}>
                {copy.title}
              </Title>
              {copy.badge}
            </Group>
            <Text size="sm" c="dimmed">
              {copy.description}
            </Text>
          </Stack>
          {group === 'totp' ? <TotpFields nodes={nodes} /> : <FlowNodes nodes={nodes.filter((node) => !isSubmit(node))} />}
          <FlowMessages messages={messages} />
          {notice && (
            <Alert color="red" variant="light">
              {notice}
            </Alert>
          )}
        </Stack>
        {buttons.length > 0 && (
          <Group justify="flex-end" gap="sm" px="lg" py="sm" bg="gray.0" style={{ borderTop: '1px solid var(--mantine-color-gray-3)' }}>
            <FlowNodes nodes={buttons} buttonProps={(node) => (nodeKey(node) === 'totp_unlink' ? { color: 'red', variant: 'light' } : {})} />
          </Group>
        )}
      </FlowForm>
    </Card>
  );
}

/** Enrolment: scan the QR code (or type the secret), then prove it with a code. */
function TotpFields({ nodes }: { nodes: readonly UiNode[] }) {
  const qr = findNode(nodes, 'totp_qr');
  const secret = findNode(nodes, 'totp_secret_key');
  const rest = nodes.filter((node) => node !== qr && node !== secret && !isSubmit(node));
  if (!qr && !secret) return <FlowNodes nodes={rest} />;
  const visible = rest.filter((node) => !isHidden(node));
  return (
    <Flex gap="xl" direction={{ base: 'column', sm: 'row' }} align={{ base: 'stretch', sm: 'flex-start' }}>
      {qr && (
        <Paper withBorder radius="md" p={8} w="fit-content" mx={{ base: 'auto', sm: 0 }} style={{ flexShrink: 0 }}>
          <FlowNode node={qr} imageSize={184} />
        </Paper>
      )}
      <Stack gap="md" style={{ flex: 1, minWidth: 0 }}>
        <Step number={1}>Scan the QR code with an authenticator app such as 1Password, Google Authenticator or Authy.</Step>
        {secret && <FlowNode node={secret} />}
        {visible.length > 0 && <Step number={2}>Enter the 6-digit code the app shows to finish.</Step>}
        <FlowNodes nodes={rest} />
      </Stack>
    </Flex>
  );
}

function Step({ number, children }: { number: number; children: ReactNode }) {
  return (
    <Group gap="sm" wrap="nowrap" align="flex-start">
      <Badge circle size="lg" variant="light" style={{ flexShrink: 0 }}>
        {number}
      </Badge>
      <Text size="sm" pt={3}>
        {children}
      </Text>
    </Group>
  );
}

type CardCopy = { title: string; description: string; badge?: ReactNode };

function cardCopy(group: string, nodes: readonly UiNode[]): CardCopy {
  switch (group) {
    case 'profile':
      return { title: 'E-mail address', description: 'The address you sign in with.' };
    case 'password':
      return { title: 'Password', description: 'Choose a new password for signing in to Meterway.' };
    case 'totp': {
      const linked = findNode(nodes, 'totp_unlink') !== undefined;
      return linked
        ? {
            title: 'Authenticator app',
            description: 'Signing in asks for a 6-digit code from your authenticator app after your password.',
            badge: (
              <Badge color="teal" variant="light">
                On
              </Badge>
            ),
          }
        : {
            title: 'Authenticator app',
            description: 'Add a second step to signing in: a 6-digit code from an app on your phone.',
            badge: (
              <Badge color="gray" variant="light">
                Off
              </Badge>
            ),
          };
    }
    default:
      return { title: group.replace(/_/g, ' ').replace(/^\w/, (letter) => letter.toUpperCase()), description: '' };
  }
}
