import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../../errors/app-error.js';

/** How an endpoint's host name is resolved (node:dns's lookup; tests pass their own). */
export type Resolve = (hostname: string, options: { all: true }, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolve: Resolve = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/**
 * Only globally routable unicast addresses: not private, loopback, link-local, unique-local,
 * CGNAT, multicast, unspecified, reserved or a translation range (6to4, Teredo, NAT64) that could
 * lead back inside. An IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

const refusedAddress = (host: string, address: string) =>
  new AppError(
    'BadRequest',
    `The endpoint's address ${host === address ? address : `(${host} → ${address})`} is not public: webhooks go only to public addresses.`,
  );

/** The URL's host without an IPv6 literal's brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * What can be checked without DNS: in production an endpoint is https, and a literal IP address
 * in it is public. Outside production anything goes (a receiver on localhost while developing).
 */
export function refuseUnsafeUrl(url: string, options: { production: boolean }): URL {
  const parsed = new URL(url);
  if (!options.production) return parsed;
  if (parsed.protocol !== 'https:') throw new AppError('BadRequest', 'The endpoint must be an https:// URL.');
  const host = hostOf(parsed);
  if (isIP(host) !== 0 && !isPublicAddress(host)) throw refusedAddress(host, host);
  return parsed;
}

const resolveAll = (resolve: Resolve, hostname: string) =>
  new Promise<LookupAddress[]>((done, fail) => resolve(hostname, { all: true }, (error, addresses) => (error ? fail(error) : done(addresses))));

/**
 * The check at registration (400 with the reason): in production the URL is https and its host
 * resolves only to public addresses. Deliveries check again as they connect (publicOnlyLookup),
 * since what a name resolves to can change after this check.
 */
export async function checkEndpointUrl(url: string, options: { production: boolean; resolve?: Resolve }): Promise<void> {
  const parsed = refuseUnsafeUrl(url, options);
  const host = hostOf(parsed);
  if (!options.production || isIP(host) !== 0) return;
  const addresses = await resolveAll(options.resolve ?? systemResolve, host).catch(() => {
    throw new AppError('BadRequest', `The endpoint's host ${host} could not be resolved.`);
  });
  if (addresses.length === 0) throw new AppError('BadRequest', `The endpoint's host ${host} could not be resolved.`);
  const refused = addresses.find((entry) => !isPublicAddress(entry.address));
  if (refused) throw refusedAddress(host, refused.address);
}

/**
 * A `lookup` for the delivery agent's connections: it resolves the name and refuses to connect if
 * any answer is not public, so the address connected to is one this check passed (DNS rebinding
 * cannot turn a checked name into an internal address between the check and the connection).
 */
export function publicOnlyLookup(resolve: Resolve = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { all: true }, (error, addresses) => {
      const refused = error ? undefined : addresses.find((entry) => !isPublicAddress(entry.address));
      const failure = error ?? (refused ? refusedAddress(hostname, refused.address) : addresses.length === 0 ? new Error(`${hostname} did not resolve`) : null);
      if (failure) return callback(failure, '', 0);
      const wanted = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
      if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, wanted);
      const [first] = wanted;
      if (!first) return callback(new Error(`${hostname} has no IPv${options.family} address`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
