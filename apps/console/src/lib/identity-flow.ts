/**
 * Reading what the identity service answers (identity-protocol.md §2, §4): flows with `ui.messages`
 * and per-node messages, and the error envelope of every other failure. Plain functions over the
 * JSON, so the SDK's parsed flows and the raw body of a 4xx both fit.
 */

type Message = { id?: number; text: string; type: string };
type MessageType = 'info' | 'error' | 'success';

/** The part of a flow these helpers read. */
export type FlowLike = {
  id?: string;
  state?: unknown;
  ui: { messages?: readonly Message[]; nodes: readonly { messages?: readonly Message[]; attributes?: object }[] };
};

const topMessages = (flow: FlowLike): readonly Message[] => flow.ui.messages ?? [];
const allMessages = (flow: FlowLike): Message[] => [
  ...topMessages(flow),
  ...flow.ui.nodes.flatMap((node) => node.messages ?? []),
];

/** Spec §4: a flow response is an error when any top-level message has type error. */
export const isFlowError = (flow: FlowLike): boolean => topMessages(flow).some((message) => message.type === 'error');

/** The texts of the flow's messages, top-level first, then per node; only those of `type` if given. */
export function flowMessages(flow: FlowLike, type?: MessageType): string[] {
  return allMessages(flow)
    .filter((message) => type === undefined || message.type === type)
    .map((message) => message.text);
}

/** Spec §5: whether any message text, top-level or node-level, contains `substring`. */
export const matchesMessage = (flow: FlowLike, substring: string): boolean =>
  allMessages(flow).some((message) => message.text.includes(substring));

export const hasMessageId = (flow: FlowLike, id: number): boolean => allMessages(flow).some((message) => message.id === id);

/** Spec §8: identity-flow error texts are shown joined by newlines. */
export const joinMessages = (messages: readonly string[]): string => messages.join('\n');

/** The anti-forgery value every browser-flow submit sends back (the `csrf_token` node). */
export function csrfToken(flow: FlowLike): string {
  for (const node of flow.ui.nodes) {
    const attributes = node.attributes as { name?: unknown; value?: unknown } | undefined;
    if (attributes?.name === 'csrf_token' && typeof attributes.value === 'string') return attributes.value;
  }
  return '';
}

/** A 400 from a submit is the flow itself, carrying its messages (§5.2, §6.2, §9.3). */
export function isFlowBody(body: unknown): body is FlowLike {
  if (typeof body !== 'object' || body === null || !('ui' in body)) return false;
  const { ui } = body as { ui: unknown };
  return typeof ui === 'object' && ui !== null && Array.isArray((ui as { nodes?: unknown }).nodes);
}

/** How a call failed: an answer outside 2xx (the SDK's ResponseError), or no answer at all. */
export type IdentityFailure = { kind: 'response'; status: number; body: unknown } | { kind: 'network'; error: unknown };

// Duck-typed rather than `instanceof ResponseError`, so a second copy of the SDK cannot break it.
function hasResponse(error: unknown): error is { response: Response } {
  if (typeof error !== 'object' || error === null || !('response' in error)) return false;
  const { response } = error as { response: Partial<Response> | null };
  return typeof response?.status === 'number' && typeof response.text === 'function';
}

export async function readFailure(error: unknown): Promise<IdentityFailure> {
  if (!hasResponse(error)) return { kind: 'network', error };
  // A clone, so that a failure logged on the way (createFlow) can still be read by its caller.
  const text = await error.response.clone().text().catch(() => '');
  let body: unknown = text || undefined;
  try {
    body = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    // Not JSON (a proxy's error page): keep the text.
  }
  return { kind: 'response', status: error.response.status, body };
}

type ErrorEnvelope = {
  error?: { id?: string; reason?: string; message?: string; details?: Record<string, unknown> };
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

export const stringOrUndefined = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
