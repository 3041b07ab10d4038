import { isIP } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import { z } from 'zod';

/**
 * Whose X-Forwarded-For a service believes (`TRUST_PROXY`): nobody's (`false`), the nearest
 * `n` proxies', or the proxies at these addresses and CIDRs. It decides `request.ip`, which every
 * per-address limit keys on.
 */
export type TrustProxy = false | number | string[];

const expected = "expected false, a number of proxy hops, or a comma-separated list of the proxies' IP addresses and CIDRs";

/** An IPv4 or IPv6 address, optionally with a prefix length: `10.0.0.0/8`, `127.0.0.1`, `fd00::/8`. */
function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  // proxy-addr refuses /0, which would trust every address anyway.
  return /^[1-9]\d{0,2}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/** `TRUST_PROXY`, parsed once at boot; unset means off. A bad value names the bad entry. */
export const trustProxySetting = z
  .string()
  .transform((value, context): TrustProxy => {
    const setting = value.trim();
    if (setting === 'false') return false;
    if (setting === 'true') {
      context.addIssue({ code: 'custom', message: `true would believe any X-Forwarded-For a client makes up; ${expected}` });
      return z.NEVER;
    }
    if (/^\d+$/.test(setting)) {
      if (Number(setting) >= 1) return Number(setting);
      context.addIssue({ code: 'custom', message: 'must be at least 1 hop (false turns it off)' });
      return z.NEVER;
    }
    const entries = setting
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    if (entries.length === 0) context.addIssue({ code: 'custom', message: `lists no address; ${expected}` });
    for (const entry of entries.filter((candidate) => !isAddressOrCidr(candidate))) {
      context.addIssue({ code: 'custom', message: `"${entry}" is not an IP address or CIDR; ${expected}` });
    }
    return entries;
  })
  .default(false);

/**
 * Fastify's `trustProxy` for a parsed setting: `@fastify/proxy-addr` reads X-Forwarded-For from
 * the right and stops at the first hop it does not trust, so a client can prepend addresses but
 * never skip the one the nearest trusted proxy appended.
 */
export function fastifyTrustProxy(setting: TrustProxy): FastifyServerOptions['trustProxy'] {
  if (setting === false || Array.isArray(setting)) return setting;
  // Fastify 5.12.1 turned a numeric `trustProxy` into "trust nobody": a hop count trusts whoever
  // connects, so a client that reaches the service directly, past its proxies, picks its own
  // address. This is Express' `trust proxy: n`, for a service only reachable through its `n`
  // proxies (README.md says so); hop 0 is the socket's peer, hop 1 the last X-Forwarded-For entry.
  const hops = setting;
  return (_address, hop) => hop < hops;
}
