import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../../errors/app-error.js';

/** How an endpoint's host name is resolved (node:dns's lookup; tests pass their own). */
export type Resolve = (hostname: string, options: { all: true }, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolve: Resolve = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/**
 * Only globally routable unicast addresses: not private, loopback, link-local, unique-local,
 * CGNAT, multicast, unspecified, reserved or Teredo. An IPv6 address that carries an IPv4 address
 * (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::a.b.c.d, 6to4
 * 2002:aabb:ccdd::) is judged by that IPv4 address, which is where it leads.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  const carried = parsed instanceof ipaddr.IPv6 ? carriedIPv4(parsed) : undefined;
  return (carried ?? parsed).range() === 'unicast';
}

function carriedIPv4({ parts }: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const ipv4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const zeros = (from: number, to: number) => parts.slice(from, to).every((part) => part === 0);
  if (zeros(0, 6)) return ipv4(parts[6]!, parts[7]!);
  if (parts[0] === 0x64 && parts[1] === 0xff9b && zeros(2, 6)) return ipv4(parts[6]!, parts[7]!);
  if (parts[0] === 0x2002) return ipv4(parts[1]!, parts[2]!);
  return undefined;
}

/** The refusal names the rule and what the owner typed, never what a name resolved to (an internal address is nobody's business). */
const refusedAddress = (host: string) =>
  new AppError(
    'BadRequest',
    isIP(host) !== 0
      ? `The endpoint's address ${host} is not public: webhooks go only to public addresses.`
      : `The endpoint's host ${host} resolves to an address that is not public: webhooks go only to public addresses.`,
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
  if (isIP(host) !== 0 && !isPublicAddress(host)) throw refusedAddress(host);
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
  if (addresses.some((entry) => !isPublicAddress(entry.address))) throw refusedAddress(host);
}

/**
 * A `lookup` for the delivery agent's connections: it resolves the name and refuses to connect if
 * any answer is not public, so the address connected to is one this check passed (DNS rebinding
 * cannot turn a checked name into an internal address between the check and the connection).
 */
export function publicOnlyLookup(resolve: Resolve = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { all: true }, (error, addresses) => {
      const refused = !error && addresses.some((entry) => !isPublicAddress(entry.address));
      const failure = error ?? (refused ? refusedAddress(hostname) : addresses.length === 0 ? new Error(`${hostname} did not resolve`) : null);
      if (failure) return callback(failure, '', 0);
      const wanted = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
      if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, wanted);
      const [first] = wanted;
      if (!first) return callback(new Error(`${hostname} has no IPv${options.family} address`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
