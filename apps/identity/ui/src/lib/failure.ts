/**
 * How a Kratos call failed. The SDK throws `ResponseError` (with `.response`) for any non-2xx; the
 * body is then either a flow (400, re-rendered with its messages) or the error envelope of
 * identity-protocol.md §2.
 */
export type Failure =
  | { kind: 'response'; status: number; body: unknown }
  /** No answer at all: offline, DNS, a dropped connection. */
  | { kind: 'network'; error: unknown };

type ErrorEnvelope = {
  error?: { id?: string; code?: number; reason?: string; message?: string; details?: Record<string, unknown> };
  redirect_browser_to?: string;
  use_flow_id?: string;
};

// Duck-typed rather than `instanceof ResponseError`, so a second copy of the SDK cannot break it.
function hasResponse(error: unknown): error is { response: Response } {
  if (typeof error !== 'object' || error === null || !('response' in error)) return false;
  const { response } = error as { response: Partial<Response> | null };
  return typeof response?.status === 'number' && typeof response.json === 'function';
}

export async function readFailure(error: unknown): Promise<Failure> {
  if (!hasResponse(error)) return { kind: 'network', error };
  const body: unknown = await error.response.json().catch(() => undefined);
  return { kind: 'response', status: error.response.status, body };
}

const envelope = (body: unknown): ErrorEnvelope => (typeof body === 'object' && body !== null ? (body as ErrorEnvelope) : {});

export const errorId = (body: unknown): string | undefined => envelope(body).error?.id;

/** `redirect_browser_to` sits at the top level (§2); session_aal2_required also repeats it in details. */
export function redirectBrowserTo(body: unknown): string | undefined {
  const { redirect_browser_to: top, error } = envelope(body);
  const nested = error?.details?.redirect_browser_to;
  return typeof top === 'string' ? top : typeof nested === 'string' ? nested : undefined;
}

/** The most specific human text an error envelope carries. */
export function errorText(failure: Failure): string {
  if (failure.kind === 'network') return 'The identity service could not be reached. Check your connection and try again.';
  const { error } = envelope(failure.body);
  return error?.reason ?? error?.message ?? `The identity service answered ${failure.status}. Please try again.`;
}

/** A 400 from a submit is the flow itself, re-rendered with its messages (§5.2, §9.3). */
export const isFlowBody = (body: unknown): body is { id: string; ui: unknown } =>
  typeof body === 'object' && body !== null && 'id' in body && 'ui' in body;
