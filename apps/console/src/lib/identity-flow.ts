import type { FlowLike, FlowMessage as Message } from '@meterway/contracts';

/**
 * Reading what the identity service answers (identity-protocol.md §2, §4): flows with `ui.messages`
 * and per-node messages. How a call failed (the error envelope, a 400 flow) is read by
 * packages/contracts' identity failure module, shared with identity's hosted pages.
 */

export { continueWith, errorId, errorReason, type FlowLike, type IdentityFailure, isFlowBody, readFailure, redirectBrowserTo } from '@meterway/contracts';

type MessageType = 'info' | 'error' | 'success';

const topMessages = (flow: FlowLike): readonly Message[] => flow.ui.messages ?? [];
const allMessages = (flow: FlowLike): Message[] => [...topMessages(flow), ...flow.ui.nodes.flatMap((node) => node.messages ?? [])];

/** Spec §4: a flow response is an error when any top-level message has type error. */
export const isFlowError = (flow: FlowLike): boolean => topMessages(flow).some((message) => message.type === 'error');

/** The texts of the flow's messages, top-level first, then per node; only those of `type` if given. */
export function flowMessages(flow: FlowLike, type?: MessageType): string[] {
  return allMessages(flow)
    .filter((message) => type === undefined || message.type === type)
    .map((message) => message.text);
}

/** Spec §5: whether any message text, top-level or node-level, contains `substring`. */
export const matchesMessage = (flow: FlowLike, substring: string): boolean => allMessages(flow).some((message) => message.text.includes(substring));

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

export const stringOrUndefined = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
