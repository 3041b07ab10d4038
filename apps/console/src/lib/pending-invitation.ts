// The invitation a visitor opened before having a session (issue #21). Its token waits in this
// tab's sessionStorage through sign-up, e-mail verification (or login, a second factor) and is
// taken up again by the first signed-in screen, which sends the browser back to the invitation.
// sessionStorage, not localStorage: the tab that opened the link is the one that signs up, and a
// token left behind is gone with the tab rather than offered to the next person at this browser.

const storageKey = 'meterway.pendingInvitation';

/** Storage can be refused (a privacy mode, a full quota): the invitation then only works signed in. */
function storage(): Storage | undefined {
  try {
    return typeof window === 'undefined' ? undefined : window.sessionStorage;
  } catch {
    return undefined;
  }
}

export function savePendingInvitation(token: string): void {
  try {
    storage()?.setItem(storageKey, token);
  } catch {
    // Not kept: the person opens the link again once signed in.
  }
}

export function pendingInvitation(): string | undefined {
  try {
    return storage()?.getItem(storageKey) || undefined;
  } catch {
    return undefined;
  }
}

export function clearPendingInvitation(): void {
  try {
    storage()?.removeItem(storageKey);
  } catch {
    // Nothing kept to clear.
  }
}
