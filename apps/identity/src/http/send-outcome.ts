import type { FastifyReply } from 'fastify';
import type { FlowRequest } from '../flows/flow-request.js';
import { serializeFlow } from '../flows/flow-store.js';
import { withFlowParam } from '../flows/flow-urls.js';
import type { Outcome } from '../flows/outcome.js';

/**
 * Answers a step's outcome: JSON for Kratos' API clients (`json`), redirects for browsers. Which
 * negotiation decides `json` is the route's call: Kratos uses Accept alone for flow creation and
 * verification, Accept or a JSON body for the other submissions.
 */
export async function sendOutcome(reply: FastifyReply, req: FlowRequest, outcome: Outcome, json: boolean) {
  switch (outcome.kind) {
    case 'error':
      throw outcome.error;
    case 'redirect':
      return reply.redirect(outcome.to, outcome.status ?? 303);
    case 'success':
      if (!json) return reply.redirect(outcome.redirectTo, 303);
      return reply.send(await outcome.body());
    case 'render': {
      if (!json) return reply.redirect(withFlowParam(outcome.screen, outcome.flow.id), outcome.screenStatus ?? 303);
      const csrfToken = outcome.csrf === 'caller' ? req.cookies.ensureCsrf() : undefined;
      const extra = outcome.extra ? await outcome.extra() : {};
      return reply.code(outcome.status).send(serializeFlow(outcome.flow, extra, csrfToken));
    }
  }
}
