import ipaddr from 'ipaddr.js';

// Most addresses: IPv4 as the socket reports it, taken as it is without parsing.
const dottedQuad = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * The client a per-address limit counts: an IPv4 address as it is (IPv4-mapped IPv6 included), an
 * IPv6 address by its /64, since one subscriber is given a whole /64 and could otherwise take a
 * fresh address for every call.
 */
export function clientOf(address: string): string {
  if (dottedQuad.test(address)) return address;
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...prefix, 0, 0, 0, 0]).toString()}/64`;
}

/**
 * What is kept of a client on its usage rows: its network, never its address — an IPv4 /24
 * (`203.0.113.0/24`) or an IPv6 /48 — from clientOf's form.
 */
export function networkOf(client: string): string {
  if (dottedQuad.test(client)) return `${client.slice(0, client.lastIndexOf('.'))}.0/24`;
  const address = client.replace(/\/64$/, '');
  if (!ipaddr.IPv6.isValid(address)) return client;
  const prefix = ipaddr.IPv6.parse(address).parts.slice(0, 3);
  return `${new ipaddr.IPv6([...prefix, 0, 0, 0, 0, 0]).toString()}/48`;
}
