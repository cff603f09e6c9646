// Where deliveries may go: https on public addresses; loopback over http only when allowed;
// private and link-local addresses only when allowed, judged on every address a name resolves to,
// when the endpoint is saved and again when connecting.
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  checkEndpointUrl,
  classifyAddress,
  type Resolver,
  safeLookup,
  type UrlPolicy,
} from '../../src/webhooks/url-safety.js';

const strict: UrlPolicy = { allowHttp: false, allowPrivate: false };
const localHttp: UrlPolicy = { allowHttp: true, allowPrivate: false };
const privateOk: UrlPolicy = { allowHttp: false, allowPrivate: true };

const resolving =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('webhook URL safety', () => {
  it('classifies addresses, also IPv4 inside IPv6', () => {
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1']) {
      expect(classifyAddress(address), address).toBe('loopback');
    }
    for (const address of [
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      'fd12:3456::1',
      'fe80::1',
      '::',
      '::ffff:10.0.0.1',
      '::ffff:a00:1',
      '64:ff9b::a9fe:a9fe',
    ]) {
      expect(classifyAddress(address), address).toBe('private');
    }
    for (const address of [
      '93.184.215.14',
      '41.94.1.1',
      '172.32.0.1',
      '2a00:1450:4001::1',
      '::ffff:8.8.8.8',
    ]) {
      expect(classifyAddress(address), address).toBe('public');
    }
  });

  it('issue 38, goal 3: the five IPv6 forms that embed IPv4 are judged by that IPv4 address, or as non-public', () => {
    const cases: [string, string][] = [
      // ::/96 (IPv4-compatible) written in hex, and in full
      ['::7f00:1', 'loopback'],
      ['::a00:1', 'private'],
      ['::a9fe:a9fe', 'private'],
      ['0:0:0:0:0:0:a00:1', 'private'],
      ['::808:808', 'public'],
      // ::ffff:0:0/96 (IPv4-mapped) in every spelling, and ::ffff:0:0:0/96 (IPv4-translated)
      ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
      ['::ffff:0:0', 'private'],
      ['::ffff:0:a00:1', 'private'],
      ['::ffff:0:10.0.0.1', 'private'],
      ['0000:0000:0000:0000:0000:FFFF:C0A8:0101', 'private'],
      ['::ffff:0:808:808', 'public'],
      // 64:ff9b::/96 (NAT64) by its IPv4 address; 64:ff9b:1::/48 (local-use NAT64) never public
      ['64:ff9b::10.0.0.1', 'private'],
      ['64:ff9b::808:808', 'public'],
      ['64:ff9b:1::808:808', 'private'],
      ['64:ff9b:1:ffff::1', 'private'],
      // 2002::/16 (6to4): the IPv4 address in bits 16-47
      ['2002:7f00:1::', 'private'],
      ['2002:a00:1::1', 'private'],
      ['2002:c0a8:101::1', 'private'],
      ['2002:a9fe:a9fe::', 'private'],
      ['2002:808:808::1', 'public'],
      // Teredo (2001::/32): server IPv4 in bits 32-63, the client's inverted in the last 32
      ['2001:0:a00:1::f5ff:fffe', 'private'],
      ['2001:0:808:808:0:0:80ff:fffe', 'private'], // client 127.0.0.1
      ['2001:0:808:808:0:0:f5ff:fffe', 'private'], // client 10.0.0.1
      ['2001:0:808:808:0:0:f7f7:f7f7', 'public'], // client 8.8.8.8
    ];
    for (const [address, expected] of cases) expect(classifyAddress(address), address).toBe(expected);
    // Still what they were: IPv6's own loopback and unspecified, and ordinary public addresses.
    expect(classifyAddress('::1')).toBe('loopback');
    expect(classifyAddress('::')).toBe('private');
    expect(classifyAddress('2001:4860:4860::8888')).toBe('public');
  });

  it('refuses an embedded private IPv4 in a URL and in a resolved name', async () => {
    await expect(checkEndpointUrl('https://[::7f00:1]/hooks', strict)).rejects.toThrow(/loopback/);
    await expect(checkEndpointUrl('https://[2002:a00:1::1]/hooks', strict)).rejects.toThrow(/private/);
    await expect(
      checkEndpointUrl('https://partner.example/hooks', strict, resolving('2001:0:808:808::f5ff:fffe')),
    ).rejects.toThrow(/private/);
  });

  it('accepts https to a public address and refuses the rest by default', async () => {
    await expect(
      checkEndpointUrl('https://partner.example/hooks', strict, resolving('93.184.215.14')),
    ).resolves.toBeInstanceOf(URL);
    await expect(
      checkEndpointUrl('http://partner.example/hooks', strict, resolving('93.184.215.14')),
    ).rejects.toThrow(/https/);
    await expect(checkEndpointUrl('https://10.1.1.1/', strict)).rejects.toThrow(/private/);
    await expect(checkEndpointUrl('https://127.0.0.1/', strict)).rejects.toThrow(/loopback/);
  });

  it('judges a name by every address it resolves to', async () => {
    await expect(
      checkEndpointUrl('https://partner.example/hooks', strict, resolving('93.184.215.14', '10.0.0.5')),
    ).rejects.toThrow(/10\.0\.0\.5 is a private/);
    await expect(checkEndpointUrl('https://intranet.example/', strict, resolving('fe80::1'))).rejects.toThrow(
      /link-local/,
    );
    await expect(
      checkEndpointUrl('https://nowhere.example/', strict, async () => {
        throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      }),
    ).rejects.toThrow(/cannot be resolved \(ENOTFOUND\)/);
    // The real resolver: localhost is loopback.
    await expect(checkEndpointUrl('https://localhost/hooks', strict)).rejects.toThrow(/loopback/);
  });

  it('WEBHOOK_ALLOW_HTTP admits loopback only, over http or https', async () => {
    await expect(checkEndpointUrl('http://127.0.0.1:8080/hooks', localHttp)).resolves.toBeInstanceOf(URL);
    await expect(checkEndpointUrl('http://[::1]:8080/hooks', localHttp)).resolves.toBeInstanceOf(URL);
    await expect(checkEndpointUrl('http://localhost:8080/hooks', localHttp)).resolves.toBeInstanceOf(URL);
    await expect(checkEndpointUrl('http://192.168.1.5/hooks', localHttp)).rejects.toThrow(
      /loopback addresses only/,
    );
    await expect(checkEndpointUrl('https://192.168.1.5/hooks', localHttp)).rejects.toThrow(/private/);
    await expect(
      checkEndpointUrl('http://partner.example/hooks', localHttp, resolving('93.184.215.14')),
    ).rejects.toThrow(/loopback addresses only/);
  });

  it('WEBHOOK_ALLOW_PRIVATE admits private networks over https', async () => {
    await expect(checkEndpointUrl('https://192.168.1.5/hooks', privateOk)).resolves.toBeInstanceOf(URL);
    await expect(
      checkEndpointUrl('https://erp.lan/hooks', privateOk, resolving('10.0.0.9')),
    ).resolves.toBeInstanceOf(URL);
    await expect(checkEndpointUrl('http://192.168.1.5/hooks', privateOk)).rejects.toThrow(/https/);
  });

  it('checks again when connecting: a name that now resolves privately is refused (DNS rebinding)', async () => {
    const lookup = safeLookup('https:', strict, resolving('10.0.0.7'));
    const error = await new Promise<Error | null>((resolve) =>
      lookup('partner.example', {}, (err) => resolve(err)),
    );
    expect(error?.message).toMatch(/10\.0\.0\.7 is a private/);
    const allowed = safeLookup('https:', strict, resolving('93.184.215.14'));
    const address = await new Promise<unknown>((resolve) =>
      allowed('partner.example', {}, (_err, result) => resolve(result)),
    );
    expect(address).toBe('93.184.215.14');
  });
});
