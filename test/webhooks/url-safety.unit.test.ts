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
