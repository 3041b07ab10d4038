/** A full page load: every flow step that leaves this page goes through the server. */
export function navigateTo(url: string): void {
  window.location.assign(url);
}

/** The `?flow=` id the identity service sent the browser here with. */
export function flowIdFromUrl(): string | undefined {
  return new URLSearchParams(window.location.search).get('flow') ?? undefined;
}
