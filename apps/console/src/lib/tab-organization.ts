// Issue #53: each tab acts in the organisation it shows. It keeps that organisation for itself
// (sessionStorage is one tab's) and names it to the api on every request (api-client.ts); a new tab
// starts on the person's current one, the last they chose, as /bff/me first answers.

const storageKey = 'meterway.organization';

/** The organisation this tab shows, once it knows one. */
export function tabOrganization(): string | null {
  try {
    return sessionStorage.getItem(storageKey);
  } catch {
    // Storage refused (a privacy mode): the tab follows the person's current organisation.
    return null;
  }
}

export function showOrganizationInTab(organizationId: string | null): void {
  try {
    if (organizationId === null) sessionStorage.removeItem(storageKey);
    else sessionStorage.setItem(storageKey, organizationId);
  } catch {
    // As above.
  }
}
