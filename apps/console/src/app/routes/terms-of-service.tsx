import { Anchor, Box, Container, List, Stack, Text, Title } from '@mantine/core';
import { Logo } from '@meterway/ui-kit';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { paths } from '../../config/paths';

const contactEmail = 'support@meterway.dev';

function Section({ id, title, children }: { id?: string; title: string; children: ReactNode }) {
  return (
    <Stack component="section" gap="xs" id={id} aria-labelledby={id && `${id}-title`}>
      <Title order={2} fz={18} fw={600} id={id && `${id}-title`}>
        {title}
      </Title>
      {children}
    </Stack>
  );
}

/** The terms a visitor agrees to when signing up (linked from /signup); readable without an account. */
export function Component() {
  return (
    <Box component="main" bg="gray.0" mih="100dvh" py={48} px="md">
      <title>Terms of service · Meterway</title>
      <Container size={760}>
        <Stack gap="xl">
          <Anchor component={Link} to={paths.login.getHref()} aria-label="Meterway home" w="fit-content">
            <Logo />
          </Anchor>
          <Stack gap={4}>
            <Title order={1} fz={28}>
              Terms of service
            </Title>
            <Text c="dimmed" size="sm">
              These terms apply to your Meterway account, the developer console and the Meterway API.
            </Text>
          </Stack>

          <Section title="1. The service">
            <Text>
              Meterway meters the AI usage (chat completions) your applications make through its API and charges it against credit you buy in advance. By
              creating an account you accept these terms on behalf of yourself and of the organisation the account belongs to.
            </Text>
          </Section>

          <Section title="2. Your account">
            <Text>
              You sign up with an e-mail address you control and verify it before using the service. Keep your password to yourself and turn on multi-factor
              authentication where you can. You are responsible for everything done with your account and its keys.
            </Text>
          </Section>

          <Section title="3. Prepaid credit">
            <List spacing="xs">
              <List.Item>Usage is paid from a credit balance you top up by card, in US dollars, before you use it.</List.Item>
              <List.Item>
                Each request is charged at the prices shown in the documentation at the time of the request. When your balance cannot cover a request, the
                request is refused; we never bill you after the fact.
              </List.Item>
              <List.Item>Card payments are processed by our payment provider; we do not store card numbers.</List.Item>
              <List.Item>Invoices and receipts are available in the Invoices portal of the console.</List.Item>
            </List>
          </Section>

          <Section title="4. Publishable keys">
            <Text>
              Publishable keys are meant to be used from browsers, so they are visible to anyone who loads your pages. Protect them with the controls the
              console offers: list the origins allowed to use each key, set a monthly budget, and remove localhost before going to production. Spend made with
              your keys, including by others who copied them, is charged to your credit. Delete a key as soon as you suspect misuse.
            </Text>
          </Section>

          <Section title="5. Acceptable use">
            <Text>You agree not to use Meterway to:</Text>
            <List spacing="xs">
              <List.Item>break the law, or infringe the rights of others;</List.Item>
              <List.Item>generate or distribute malware, spam, or content that exploits or harms people;</List.Item>
              <List.Item>probe, overload or circumvent the limits and security of the service;</List.Item>
              <List.Item>resell access to the API without our written agreement.</List.Item>
            </List>
            <Text>We may suspend keys or accounts that break these rules, and will tell you why when we do.</Text>
          </Section>

          <Section title="6. Refunds of unused credit">
            <Text>
              Credit does not expire while your account is open. You may ask for a refund of unused credit within 14 days of buying it; after that, unused
              credit is refunded when you close your account, less any fees the payment provider charged us. Credit used for requests is not refundable.
            </Text>
          </Section>

          <Section id="privacy" title="7. Privacy">
            <Text>
              We keep what is needed to run and bill the service: your e-mail address, your organisation, your keys and the metadata of each request (time,
              model, token counts and cost). Prompts and completions pass through to the model provider and are not stored by us. We do not sell personal data.
              You can ask for a copy of your data, or for its deletion, at any time.
            </Text>
          </Section>

          <Section title="8. Liability">
            <Text>
              The service is provided as is. Model output can be wrong, and you decide how your application uses it. To the extent the law allows, our total
              liability for any claim is limited to the amount you paid us in the twelve months before the claim, and we are not liable for indirect or
              consequential losses.
            </Text>
          </Section>

          <Section title="9. Changes and termination">
            <Text>
              We will announce changes to these terms by e-mail at least 30 days before they take effect. You may close your account at any time; we may close
              it with 30 days&apos; notice, or at once for a serious breach of these terms.
            </Text>
          </Section>

          <Section title="10. Contact">
            <Text>
              Questions about these terms, refunds or your data: <Anchor href={`mailto:${contactEmail}`}>{contactEmail}</Anchor>.
            </Text>
          </Section>
        </Stack>
      </Container>
    </Box>
  );
}
