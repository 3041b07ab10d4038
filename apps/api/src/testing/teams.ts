import type { Role } from '@meterway/contracts';
import type { FastifyInstance, InjectOptions } from 'fastify';

type Person = { email: string; cookie: string };

/**
 * Team set-up through the routes, as the console does it: invite by e-mail, read the mailed link,
 * accept as the invitee. `lastLinkTo` reads the newest invitation link mailed to an address.
 */
export function teamsOf(app: () => FastifyInstance, lastLinkTo: (email: string) => Promise<string | undefined>) {
  const call = (cookie: string, method: InjectOptions['method'], url: string, payload?: object) =>
    app().inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });

  /** The token of the newest link mailed to the address. */
  const tokenFor = async (email: string) => (await lastLinkTo(email))?.split('/invitations/')[1] ?? '';

  const invite = (inviter: Person, email: string, role: Role) => call(inviter.cookie, 'POST', '/bff/invitations', { email, role });
  const accept = (person: Person, token: string) => call(person.cookie, 'POST', '/bff/invitations/accept', { token });

  /** The person joins the inviter's current organisation with the role, which becomes the person's current one. */
  async function join(inviter: Person, person: Person, role: Role) {
    const invited = await invite(inviter, person.email, role);
    if (invited.statusCode !== 201) throw new Error(`inviting ${person.email} answered ${invited.statusCode}: ${invited.body}`);
    const accepted = await accept(person, await tokenFor(person.email));
    if (accepted.statusCode !== 200) throw new Error(`accepting as ${person.email} answered ${accepted.statusCode}: ${accepted.body}`);
    return accepted.json() as { organizationId: string; organizationName: string; role: Role };
  }

  return { call, tokenFor, invite, accept, join };
}
