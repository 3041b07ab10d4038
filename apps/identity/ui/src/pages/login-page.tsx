import { AuthCard } from '@meterway/ui-kit';
import { Alert, Anchor, Center, Loader, Stack, Text } from '@mantine/core';
import type { LoginFlow, UiNode } from '@ory/client-fetch';
import { useEffect, useEffectEvent, useState } from 'react';
import { FlowForm } from '../components/flow-form';
import { FlowMessages } from '../components/flow-messages';
import { FlowNodes } from '../components/flow-nodes';
import { loadLoginFlow, loginInitUrl, type LoginResult, logoutUrl, submitLogin } from '../lib/login';
import { flowIdFromUrl, navigateTo } from '../lib/navigation';
import { buildBody, type FormValues } from '../lib/ui-nodes';

type Shown = { flow: LoginFlow; revision: number };

/**
 * /ui/login?flow=<id>: any login flow, rendered from its nodes. In this deployment it is the
 * second factor; the first factor is the console's own login screen.
 */
export function LoginPage({ consoleUrl }: { consoleUrl: string }) {
  const [shown, setShown] = useState<Shown>();
  const [notice, setNotice] = useState<string>();

  const show = (result: LoginResult) => {
    if (result.kind === 'flow') {
      setShown((current) => ({ flow: result.flow, revision: (current?.revision ?? 0) + 1 }));
      setNotice(undefined);
    } else if (result.kind === 'navigate') {
      navigateTo(result.to);
    } else {
      setNotice(result.message);
    }
  };

  const showLoaded = useEffectEvent(show);
  useEffect(() => {
    const id = flowIdFromUrl();
    if (!id) return navigateTo(loginInitUrl);
    let current = true;
    void loadLoginFlow(id, consoleUrl).then((result) => current && showLoaded(result));
    return () => {
      current = false;
    };
  }, [consoleUrl]);

  if (!shown) {
    return (
      <AuthCard title="Sign in">
        {notice ? (
          <Alert color="red" variant="light">
            {notice}
          </Alert>
        ) : (
          <Center py="xl">
            <Loader aria-label="Loading" />
          </Center>
        )}
      </AuthCard>
    );
  }

  const { flow, revision } = shown;
  const secondFactor = flow.requested_aal === 'aal2';
  const submit = async (values: FormValues, submitter: UiNode | undefined) => {
    const groups = ['default', ...(submitter ? [submitter.group] : [])];
    show(await submitLogin(flow, buildBody(flow.ui.nodes, groups, values, submitter), consoleUrl));
  };
  const signOut = async () => navigateTo(await logoutUrl(consoleUrl));

  const heading = secondFactor ? 'Two-factor authentication' : flow.refresh ? "Confirm it's you" : 'Sign in';
  return (
    <AuthCard
      title={heading}
      description={secondFactor ? 'Enter the 6-digit code from your authenticator app to finish signing in.' : undefined}
      footer={
        secondFactor && (
          <Text size="sm" c="dimmed" ta="center">
            Not you, or no access to your app?{' '}
            <Anchor component="button" type="button" size="sm" fw={500} onClick={signOut}>
              Sign out
            </Anchor>
          </Text>
        )
      }
    >
      <title>{`${heading} · Meterway`}</title>
      <Stack gap="md">
        <FlowMessages messages={flow.ui.messages} />
        {notice && (
          <Alert color="red" variant="light">
            {notice}
          </Alert>
        )}
        <FlowForm key={revision} nodes={flow.ui.nodes} onSubmit={submit}>
          <Stack gap="md">
            <FlowNodes nodes={flow.ui.nodes} autoFocus buttonProps={() => ({ fullWidth: true, mt: 'xs' })} />
          </Stack>
        </FlowForm>
      </Stack>
    </AuthCard>
  );
}
