import { Alert, Button, Center, Loader, Stack, Text, Title } from '@mantine/core';
import type { SettingsFlow, UiNode } from '@ory/client-fetch';
import { useEffect, useEffectEvent, useRef, useState } from 'react';
import { FlowMessages } from '../components/flow-messages';
import { PageShell } from '../components/page-shell';
import { ReauthModal } from '../components/reauth-modal';
import { SettingsCard } from '../components/settings-card';
import { reauthenticate } from '../lib/login';
import { flowIdFromUrl, navigateTo } from '../lib/navigation';
import { loadSettingsFlow, type SettingsResult, settingsInitUrl, submitSettings } from '../lib/settings';
import { buildBody, csrfToken, type FormValues, formGroups } from '../lib/ui-nodes';

type Shown = {
  flow: SettingsFlow;
  /** Bumped with every flow the server returns, so each card's form starts over from it. */
  revision: number;
  /** The card whose submit the flow's ui.messages answer; none means they go at the top. */
  answeredGroup?: string;
};
type Notice = { group?: string; text: string };
/** A change waiting for the password prompt: its body without the CSRF token, which changes. */
type PendingChange = { group: string; body: Record<string, unknown> };

/** /ui/settings?flow=<id>: e-mail, password and authenticator app, one card each. */
export function SettingsPage({ consoleUrl }: { consoleUrl: string }) {
  const [shown, setShown] = useState<Shown>();
  const [notice, setNotice] = useState<Notice>();
  const [pending, setPending] = useState<PendingChange>();

  const show = (result: SettingsResult, group?: string) => {
    if (result.kind === 'flow') {
      setShown((current) => ({ flow: result.flow, revision: (current?.revision ?? 0) + 1, answeredGroup: group }));
      setNotice(undefined);
    } else if (result.kind === 'navigate') {
      navigateTo(result.to);
    } else if (result.kind === 'failed') {
      setNotice({ group, text: result.message });
    } else {
      setNotice({ group, text: 'Please confirm your password, then try again.' });
    }
  };

  const showLoaded = useEffectEvent((result: SettingsResult) => show(result));
  useEffect(() => {
    const id = flowIdFromUrl();
    if (!id) return navigateTo(settingsInitUrl);
    let current = true;
    void loadSettingsFlow(id, consoleUrl).then((result) => current && showLoaded(result));
    return () => {
      current = false;
    };
  }, [consoleUrl]);

  useScrollToHash(shown !== undefined);

  if (!shown) {
    return (
      <PageShell consoleUrl={consoleUrl}>
        <title>Account settings · Meterway</title>
        {notice ? <LoadFailure text={notice.text} /> : <Loading />}
      </PageShell>
    );
  }

  const { flow, revision, answeredGroup } = shown;
  const nodes = flow.ui.nodes;
  const groups = formGroups(nodes);
  const email = identityEmail(flow);
  const messagesAtTop = answeredGroup === undefined || !groups.includes(answeredGroup);

  const submit = async (group: string, values: FormValues, submitter: UiNode | undefined) => {
    const body = buildBody(nodes, [group], values, submitter);
    const result = await submitSettings(flow.id, body, consoleUrl);
    if (result.kind === 'refresh-required') {
      const { csrf_token: _token, ...change } = body;
      setPending({ group, body: change });
      return;
    }
    show(result, group);
  };

  const confirmAndResubmit = async (password: string): Promise<string[] | undefined> => {
    if (!pending) return undefined;
    const confirmed = await reauthenticate(email, password, consoleUrl);
    if (confirmed.kind === 'rejected') return confirmed.messages;
    if (confirmed.kind === 'navigate') {
      navigateTo(confirmed.to);
      return undefined;
    }
    // The re-submit needs the flow's current CSRF token, so the flow is fetched again first.
    const fresh = await loadSettingsFlow(flow.id, consoleUrl);
    const result = fresh.kind === 'flow' ? await submitSettings(flow.id, { ...pending.body, csrf_token: csrfToken(fresh.flow.ui.nodes) }, consoleUrl) : fresh;
    setPending(undefined);
    show(result, pending.group);
    return undefined;
  };

  return (
    <PageShell consoleUrl={consoleUrl}>
      <title>Account settings · Meterway</title>
      <Stack gap="lg">
        <Stack gap={4}>
          <Title order={1} fz={28} fw={650}>
            Account settings
          </Title>
          {email && (
            <Text c="dimmed">
              Signed in as <strong>{email}</strong>
            </Text>
          )}
        </Stack>
        {messagesAtTop && <FlowMessages messages={flow.ui.messages} />}
        {notice && !notice.group && (
          <Alert color="red" variant="light">
            {notice.text}
          </Alert>
        )}
        {groups.map((group) => (
          <SettingsCard
            key={`${group}-${revision}`}
            group={group}
            nodes={nodes.filter((node) => node.group === group)}
            messages={!messagesAtTop && answeredGroup === group ? flow.ui.messages : undefined}
            notice={notice?.group === group ? notice.text : undefined}
            onSubmit={(values, submitter) => submit(group, values, submitter)}
          />
        ))}
      </Stack>
      <ReauthModal opened={pending !== undefined} email={email} onCancel={() => setPending(undefined)} onConfirm={confirmAndResubmit} />
    </PageShell>
  );
}

/** Links such as /ui/settings#totp name a card; it only exists once the flow has rendered. */
function useScrollToHash(rendered: boolean) {
  const done = useRef(false);
  useEffect(() => {
    if (!rendered || done.current) return;
    done.current = true;
    const id = decodeURIComponent(window.location.hash.slice(1));
    if (id) document.getElementById(id)?.scrollIntoView({ behavior: 'smooth', block: 'start' });
  }, [rendered]);
}

function identityEmail(flow: SettingsFlow): string {
  const traits = flow.identity.traits as { email?: unknown } | undefined;
  return typeof traits?.email === 'string' ? traits.email : '';
}

function Loading() {
  return (
    <Center py={120}>
      <Loader aria-label="Loading your settings" />
    </Center>
  );
}

function LoadFailure({ text }: { text: string }) {
  return (
    <Alert color="red" variant="light" title="Your settings could not be loaded">
      <Stack gap="sm" align="flex-start">
        <Text size="sm">{text}</Text>
        <Button size="xs" variant="light" color="red" onClick={() => window.location.reload()}>
          Try again
        </Button>
      </Stack>
    </Alert>
  );
}
