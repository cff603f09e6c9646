// Where deliveries may go. An endpoint URL is https, on a public address; the operator may allow
// plain http to loopback (WEBHOOK_ALLOW_HTTP, a receiver on the same machine) and private,
// link-local and loopback addresses (WEBHOOK_ALLOW_PRIVATE, a partner on the same network).
// A host name is judged by every address it resolves to, when the endpoint is saved and again on
// every attempt: the connection is made to the very address that was checked (the `lookup` hook
// of node:http), so a name that later resolves somewhere private (DNS rebinding) is refused too.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { english, type Message } from '../i18n/message.js';

export interface UrlPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** A URL refused: a catalog text (the operator's tools tell it in their language), its English the message. */
export class UnsafeUrl extends Error {
  override name = 'UnsafeUrl';
  readonly text: Message;

  constructor(text: Message) {
    super(english(text));
    this.text = text;
  }
}

export type AddressClass = 'public' | 'loopback' | 'private';

const MAX_URL_LENGTH = 2048;

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Everything that is not a public unicast address on the internet. */
const nonPublic = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  nonPublic.addSubnet(network, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 literal (Node has no parser of its own to export). */
function ipv6Bytes(address: string): number[] | null {
  let text = address.toLowerCase();
  const tail: number[] = [];
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted.slice(2, 6).map(Number);
    if (parts.some((part) => part > 255)) return null;
    tail.push(...parts);
    text = `${dotted[1]}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string | undefined) => (part ? part.split(':') : []);
  const head = groupsOf(halves[0]);
  const rest = groupsOf(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  const bytes: number[] = [];
  for (const group of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return null;
    const value = Number.parseInt(group, 16);
    bytes.push(value >> 8, value & 255);
  }
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

const zeros = (bytes: readonly number[], from: number, to: number) =>
  bytes.slice(from, to).every((byte) => byte === 0);
const ipv4Of = (bytes: readonly number[]) => bytes.join('.');

/**
 * How an IPv6 address that carries an IPv4 address is judged: by that IPv4 address (`embedded`),
 * or as never public (`private`); null for an address that carries none.
 * - `::a.b.c.d` (IPv4-compatible, ::/96, also written in hex), `::ffff:a.b.c.d` (IPv4-mapped,
 *   ::ffff:0:0/96), `::ffff:0:a.b.c.d` (IPv4-translated) and `64:ff9b::a.b.c.d` (NAT64,
 *   64:ff9b::/96): the IPv4 address in the last 32 bits;
 * - `2002:AABB:CCDD::/48` (6to4, 2002::/16): AA.BB.CC.DD; a 6to4 address is reached through a relay
 *   to that IPv4 host, so one around a non-public IPv4 address is private;
 * - Teredo (2001:0::/32): the server's IPv4 address in bits 32-63, the client's (inverted) in the
 *   last 32; private unless both are public;
 * - `64:ff9b:1::/48` (local-use NAT64, RFC 8215): translated by the operator's own gateway, with
 *   the IPv4 address wherever its prefix length puts it: always private.
 */
function embeddedIpv4(bytes: readonly number[]): { embedded: string } | 'private' | null {
  const last = bytes.slice(12, 16);
  if (zeros(bytes, 0, 12)) {
    // `::` and `::1` are IPv6's own unspecified and loopback addresses, judged as such.
    return zeros(bytes, 12, 15) && (bytes[15] ?? 0) <= 1 ? null : { embedded: ipv4Of(last) };
  }
  if (zeros(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return { embedded: ipv4Of(last) };
  if (zeros(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(bytes, 10, 12)) {
    return { embedded: ipv4Of(last) };
  }
  const prefix = bytes.slice(0, 6).join(',');
  if (prefix === '0,100,255,155,0,0' && zeros(bytes, 6, 12)) return { embedded: ipv4Of(last) };
  if (prefix === '0,100,255,155,0,1') return 'private';
  if (bytes[0] === 0x20 && bytes[1] === 0x02) {
    return classifyAddress(ipv4Of(bytes.slice(2, 6))) === 'public' ? null : 'private';
  }
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0 && bytes[3] === 0) {
    const server = ipv4Of(bytes.slice(4, 8));
    const client = ipv4Of(last.map((byte) => byte ^ 0xff));
    return classifyAddress(server) === 'public' && classifyAddress(client) === 'public' ? null : 'private';
  }
  return null;
}

/** What kind of address an IP literal is. */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) throw new UnsafeUrl({ key: 'url.not_an_ip', params: { address } });
  if (family === 6) {
    const bytes = ipv6Bytes(bare);
    if (!bytes) throw new UnsafeUrl({ key: 'url.not_an_ip', params: { address } });
    const inner = embeddedIpv4(bytes);
    if (inner === 'private') return 'private';
    if (inner) return classifyAddress(inner.embedded);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (loopback.check(bare, type)) return 'loopback';
  if (nonPublic.check(bare, type)) return 'private';
  return 'public';
}

function addressAllowed(kind: AddressClass, policy: UrlPolicy): boolean {
  if (kind === 'public') return true;
  if (kind === 'loopback') return policy.allowHttp || policy.allowPrivate;
  return policy.allowPrivate;
}

/** Refuses an address the policy does not allow; for plain http, only loopback ever is. */
export function checkAddress(address: string, protocol: string, policy: UrlPolicy): void {
  const kind = classifyAddress(address);
  if (protocol === 'http:' && kind !== 'loopback') {
    throw new UnsafeUrl({ key: 'url.http_not_loopback', params: { address } });
  }
  if (!addressAllowed(kind, policy)) {
    throw new UnsafeUrl({ key: kind === 'loopback' ? 'url.loopback' : 'url.private', params: { address } });
  }
}

/** The URL's own form: https (or http when allowed), no user or password, a sane length. */
export function parseEndpointUrl(raw: string, policy: UrlPolicy): URL {
  if (raw.length > MAX_URL_LENGTH) {
    throw new UnsafeUrl({ key: 'url.too_long', params: { max: MAX_URL_LENGTH } });
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrl({ key: 'url.invalid', params: { url: raw } });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UnsafeUrl({ key: 'url.https' });
  }
  if (url.protocol === 'http:' && !policy.allowHttp) {
    throw new UnsafeUrl({ key: 'url.https_unless_loopback' });
  }
  if (url.username || url.password) throw new UnsafeUrl({ key: 'url.credentials' });
  if (url.hash) throw new UnsafeUrl({ key: 'url.fragment' });
  if (url.hostname === '') throw new UnsafeUrl({ key: 'url.no_host' });
  return url;
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

/** The URL's host name without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Checks a URL completely: its form, then every address its host resolves to. Returns the URL.
 * A name that does not resolve is refused (the operator would not see deliveries fail otherwise).
 */
export async function checkEndpointUrl(
  raw: string,
  policy: UrlPolicy,
  resolver: Resolver = systemResolver,
): Promise<URL> {
  const url = parseEndpointUrl(raw, policy);
  const host = hostOf(url);
  if (isIP(host)) {
    checkAddress(host, url.protocol, policy);
    return url;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await resolver(host);
  } catch (error) {
    throw new UnsafeUrl({
      key: 'url.unresolvable',
      params: { host, code: (error as NodeJS.ErrnoException).code ?? 'error' },
    });
  }
  if (addresses.length === 0) throw new UnsafeUrl({ key: 'url.no_address', params: { host } });
  for (const { address } of addresses) checkAddress(address, url.protocol, policy);
  return url;
}

/**
 * A `lookup` for node:http that resolves the host, refuses the connection if any of its addresses
 * breaks the policy, and otherwise connects to the first one: the checked address is the one used.
 */
export function safeLookup(
  protocol: string,
  policy: UrlPolicy,
  resolver: Resolver = systemResolver,
): LookupFunction {
  return (hostname, options, callback) => {
    resolver(hostname).then(
      (addresses) => {
        try {
          if (addresses.length === 0)
            throw new UnsafeUrl({ key: 'url.no_address', params: { host: hostname } });
          for (const { address } of addresses) checkAddress(address, protocol, policy);
        } catch (error) {
          callback(error as NodeJS.ErrnoException, '', 0);
          return;
        }
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = addresses.filter((entry) => wanted === 0 || entry.family === wanted);
        if (options.all) {
          callback(null, usable);
          return;
        }
        const first = usable[0];
        if (!first) {
          callback(
            Object.assign(new Error(`no IPv${wanted} address for ${hostname}`), { code: 'ENOTFOUND' }),
            '',
            0,
          );
          return;
        }
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** For an IP-literal host (which node:http connects to without a lookup): checked here instead. */
export function checkLiteralHost(url: URL, policy: UrlPolicy): void {
  const host = hostOf(url);
  if (isIP(host)) checkAddress(host, url.protocol, policy);
}
