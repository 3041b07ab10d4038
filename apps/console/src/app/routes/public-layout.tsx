import { useEffect } from 'react';
import { Outlet } from 'react-router';
import { useGoOnWithSession } from '../../features/auth/hooks/use-go-on-with-session';
import { TestModeBanner } from '../../features/credits/components/test-mode-banner';
import { type SessionStatus, sessionStatus } from '../../lib/identity-client';

/**
 * Runs `task` once the page has shown its first content, so that the request it makes does not
 * compete with that paint: at once when the page painted before (a visit from another screen).
 * Returns the cancel.
 */
function afterFirstPaint(task: () => void): () => void {
  const paintTimings = typeof PerformanceObserver !== 'undefined' && PerformanceObserver.supportedEntryTypes.includes('paint');
  if (!paintTimings || performance.getEntriesByName('first-contentful-paint').length > 0) {
    const timeout = setTimeout(task);
    return () => clearTimeout(timeout);
  }
  const observer = new PerformanceObserver((entries) => {
    if (!entries.getEntriesByName('first-contentful-paint').length) return;
    observer.disconnect();
    task();
  });
  observer.observe({ type: 'paint', buffered: true });
  return () => observer.disconnect();
}

/**
 * The guard of /login, /signup and /recover (spec §2): a visitor already signed in goes to the
 * dashboard, or to verify-email while the address is unverified; one whose second factor is due
 * goes to identity's second-factor step, then to the dashboard. Most visitors here are signed
 * out, so the screen shows at once and asks identity afterwards, off the first paint's path.
 * Like every signed-in screen, they say when payments run in the sandbox in production.
 */
export function Component() {
  const goOnWithSession = useGoOnWithSession();

  useEffect(() => {
    let current = true;
    const go = (status: SessionStatus) => {
      if (current) goOnWithSession(status);
    };
    // identity could not say (already logged by the client): the screen stays, so logging in
    // stays possible rather than the visitor being stuck on an error page.
    const ask = () => sessionStatus().then(go, () => {});
    const stop = afterFirstPaint(ask);
    return () => {
      current = false;
      stop();
    };
  }, [goOnWithSession]);

  return (
    <>
      <TestModeBanner />
      <Outlet />
    </>
  );
}
