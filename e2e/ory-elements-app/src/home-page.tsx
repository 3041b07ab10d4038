import type { Session } from '@ory/client-fetch';
import { useEffect, useState } from 'react';
import type { AppConfig } from './config';

/** The app's own page: who is signed in and at which level, with a logout through the identity. */
export function HomePage({ config }: { config: AppConfig }) {
  const [state, setState] = useState<{ session?: Session; problem?: string }>();
  useEffect(() => {
    config.sdk.toSession().then(
      (session) => setState({ session }),
      async (error: { response?: Response }) => {
        const body = (await error.response?.json().catch(() => undefined)) as { error?: { id?: string; reason?: string } } | undefined;
        setState({ problem: body?.error?.id ?? body?.error?.reason ?? 'no session' });
      },
    );
  }, [config]);

  const logOut = async () => {
    const { logout_url } = await config.sdk.createBrowserLogoutFlow({ returnTo: `${window.location.origin}/` });
    window.location.assign(logout_url);
  };

  if (!state) return <p>Loading…</p>;
  if (!state.session) return <p data-testid="session-problem">Not signed in: {state.problem}</p>;
  const traits = state.session.identity?.traits as { email?: string } | undefined;
  return (
    <main>
      <p data-testid="session-email">{traits?.email}</p>
      <p data-testid="session-aal">{state.session.authenticator_assurance_level}</p>
      <button type="button" onClick={() => void logOut()}>
        Log out
      </button>
    </main>
  );
}
