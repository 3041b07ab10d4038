import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { eq, sql } from 'drizzle-orm';
import { addMinutes } from '../domain/clock.js';
import { flows, type FlowKind } from '../db/schema/flows.js';
import { maskToken } from './csrf.js';
import { type Ui, withCsrf } from './ui-nodes.js';

export type Flow = typeof flows.$inferSelect;
export type { FlowKind };

/** Every flow lives an hour (Kratos' default lifespan for all five kinds). */
export const flowLifespanMinutes = 60;

type NewFlow = {
  /** Drawn by the caller when the UI must be built (asynchronously) before the insert. */
  id?: string;
  kind: FlowKind;
  state: string;
  csrfToken: string;
  requestUrl: string;
  returnTo?: string | undefined;
  identityId?: string | undefined;
  requestedAal?: 'aal1' | 'aal2' | undefined;
  refresh?: boolean;
  active?: string | undefined;
  /** Builds the UI once the id (and so the action URL) is known. */
  ui: (id: string) => Ui;
  context?: Record<string, unknown>;
  now: Date;
};

export async function createFlow(db: Database, input: NewFlow): Promise<Flow> {
  const id = input.id ?? randomUUID();
  const [flow] = await db
    .insert(flows)
    .values({
      id,
      kind: input.kind,
      state: input.state,
      csrfToken: input.csrfToken,
      requestUrl: input.requestUrl,
      returnTo: input.returnTo ?? null,
      identityId: input.identityId ?? null,
      requestedAal: input.requestedAal ?? null,
      refresh: input.refresh ?? false,
      active: input.active ?? null,
      ui: input.ui(id) as unknown as Record<string, unknown>,
      context: input.context ?? {},
      issuedAt: input.now,
      expiresAt: addMinutes(input.now, flowLifespanMinutes),
      updatedAt: input.now,
    })
    .returning();
  if (!flow) throw new Error('flow insert returned nothing');
  return flow;
}

export async function findFlow(db: Database, id: string, kind: FlowKind): Promise<Flow | undefined> {
  const [flow] = await db.select().from(flows).where(eq(flows.id, id)).limit(1);
  return flow?.kind === kind ? flow : undefined;
}

type FlowPatch = Partial<Pick<Flow, 'state' | 'active' | 'context' | 'submissions' | 'csrfToken' | 'identityId'>> & { ui?: Ui };

export async function updateFlow(db: Database, flow: Flow, patch: FlowPatch, now: Date): Promise<Flow> {
  const { ui, ...rest } = patch;
  const [updated] = await db
    .update(flows)
    .set({ ...rest, ...(ui ? { ui: ui as unknown as Record<string, unknown> } : {}), updatedAt: now })
    .where(eq(flows.id, flow.id))
    .returning();
  if (!updated) throw new Error(`flow ${flow.id} vanished`);
  return updated;
}

/**
 * Counts one code attempt in the database and returns the flow's new count. Read-then-write would
 * let simultaneous guesses all see the same count and all be judged; the increment cannot.
 */
export async function countSubmission(db: Database, flow: Flow): Promise<number> {
  const [counted] = await db
    .update(flows)
    .set({ submissions: sql`${flows.submissions} + 1` })
    .where(eq(flows.id, flow.id))
    .returning({ submissions: flows.submissions });
  if (!counted) throw new Error(`flow ${flow.id} vanished`);
  return counted.submissions;
}

export const flowUi = (flow: Flow) => flow.ui as unknown as Ui;

/**
 * The flow as clients see it; `extra` adds per-kind fields (identity, continue_with). The CSRF
 * node is masked from `realCsrfToken`: a submit answers with the caller's own token, never the
 * one the flow was issued with, since a masked token unmasks to the cookie of whoever opened it.
 */
export function serializeFlow(flow: Flow, extra: Record<string, unknown> = {}, realCsrfToken = flow.csrfToken) {
  return {
    id: flow.id,
    type: flow.type,
    expires_at: flow.expiresAt.toISOString(),
    issued_at: flow.issuedAt.toISOString(),
    request_url: flow.requestUrl,
    ...(flow.returnTo ? { return_to: flow.returnTo } : {}),
    ...(flow.active ? { active: flow.active } : {}),
    ...(flow.kind === 'login'
      ? {
          refresh: flow.refresh,
          requested_aal: flow.requestedAal ?? 'aal1',
          created_at: flow.issuedAt.toISOString(),
          updated_at: flow.updatedAt.toISOString(),
        }
      : {}),
    state: flow.state,
    ui: withCsrf(flowUi(flow), maskToken(realCsrfToken)),
    ...extra,
  };
}
