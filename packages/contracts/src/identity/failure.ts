/**
 * How an identity (Kratos) call failed, read the same way by the console and identity's hosted
 * pages (identity-protocol.md §2, §4). The SDK throws `ResponseError` (with `.response`) for any
 * non-2xx; the body is then either a flow (400, re-rendered with its messages) or the error
 * envelope. Plain functions over the JSON, so the SDK's parsed flows and a raw 4xx body both fit.
 */

export type FlowMessage = { id?: number; text: string; type: string };

/** The part of a flow body these readers (and the console's message helpers) look at. */
export type FlowLike = {
  id?: string;
  state?: unknown;
  ui: { messages?: readonly FlowMessage[]; nodes: readonly { messages?: readonly FlowMessage[]; attributes?: object }[] };
};

/** An answer outside 2xx (the SDK's ResponseError), or no answer at all: offline, DNS, a dropped connection. */
export type IdentityFailure = { kind: 'response'; status: number; body: unknown } | { kind: 'network'; error: unknown };

// Duck-typed rather than `instanceof ResponseError`, so a second copy of the SDK cannot break it.
function hasResponse(error: unknown): error is { response: Response } {
  if (typeof error !== 'object' || error === null || !('response' in error)) return false;
  const { response } = error as { response: Partial<Response> | null };
  return typeof response?.status === 'number' && typeof response.text === 'function';
}

export async function readFailure(error: unknown): Promise<IdentityFailure> {
  if (!hasResponse(error)) return { kind: 'network', error };
  // A clone, so that a failure logged on the way (the console's createFlow) can still be read by its caller.
  const text = await error.response
    .clone()
    .text()
    .catch(() => '');
  let body: unknown = text || undefined;
  try {
    body = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    // Not JSON (a proxy's error page): keep the text.
  }
  return { kind: 'response', status: error.response.status, body };
}

/** A 400 from a submit is the flow itself, carrying its messages (§5.2, §6.2, §9.3). */
export function isFlowBody(body: unknown): body is FlowLike {
  if (typeof body !== 'object' || body === null || !('ui' in body)) return false;
  const { ui } = body as { ui: unknown };
  return typeof ui === 'object' && ui !== null && Array.isArray((ui as { nodes?: unknown }).nodes);
}

type ErrorEnvelope = {
  error?: { id?: string; code?: number; reason?: string; message?: string; details?: Record<string, unknown> };
  redirect_browser_to?: string;
};

const envelope = (body: unknown): ErrorEnvelope => (typeof body === 'object' && body !== null ? (body as ErrorEnvelope) : {});

export const errorId = (body: unknown): string | undefined => envelope(body).error?.id;

/** The most specific text of an error envelope: its reason, else its message. */
export function errorReason(body: unknown): string | undefined {
  const { error } = envelope(body);
  return error?.reason || error?.message || undefined;
}

/** `redirect_browser_to` sits at the top level (§2); session_aal2_required repeats it in details. */
export function redirectBrowserTo(body: unknown): string | undefined {
  const { redirect_browser_to: top, error } = envelope(body);
  const nested = error?.details?.redirect_browser_to;
  return typeof top === 'string' ? top : typeof nested === 'string' ? nested : undefined;
}

type ContinueWithItem = { action?: unknown; flow?: { id?: unknown; url?: unknown; verifiable_address?: unknown } };

/** The `continue_with` item for `action`, from a success body or from an error's details (§7.4). */
export function continueWith(body: unknown, action: string): ContinueWithItem | undefined {
  const items = (envelope(body) as { continue_with?: unknown }).continue_with ?? envelope(body).error?.details?.continue_with;
  if (!Array.isArray(items)) return undefined;
  return (items as ContinueWithItem[]).find((item) => item?.action === action);
}
