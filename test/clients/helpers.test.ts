// The TypeScript client's helpers that need no server: webhook verification (the Standard
// Webhooks test vector, rotation, tolerance, tampering; cross-checked with the `standardwebhooks`
// package the server signs with) and the NUIT check digit (python-stdnum's published algorithm).
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  compactNuit,
  formatNuit,
  isValidNuit,
  nuitCheckDigit,
  verifyWebhook,
  WebhookVerificationError,
} from '../../clients/typescript/src/index.js';
import { testStorage } from '../helpers/database.js';

// The test vector published with the Standard Webhooks specification.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const MSG_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TIMESTAMP = 1614265330;
const PAYLOAD = '{"test": 2432232314}';
const SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
const OTHER = `whsec_${Buffer.from('another secret of 24 bytes!').toString('base64')}`;
const AT = new Date(TIMESTAMP * 1000);

function headers(signature: string, timestamp = TIMESTAMP, id = MSG_ID): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

async function reason(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return (error as WebhookVerificationError).reason;
}

describe.runIf(testStorage() === 'pglite')('TypeScript client: webhook verification', () => {
  it("accepts the specification's vector, from Node headers or fetch Headers, string or bytes", async () => {
    expect(await verifyWebhook(PAYLOAD, headers(SIGNATURE), SECRET, { now: AT })).toEqual({
      test: 2432232314,
    });
    const fetchHeaders = new Headers(headers(SIGNATURE));
    expect(await verifyWebhook(new TextEncoder().encode(PAYLOAD), fetchHeaders, SECRET, { now: AT })).toEqual(
      {
        test: 2432232314,
      },
    );
    const upper = {
      'Webhook-Id': MSG_ID,
      'Webhook-Timestamp': String(TIMESTAMP),
      'Webhook-Signature': SIGNATURE,
    };
    expect(
      await verifyWebhook(PAYLOAD, upper, SECRET, { now: new Date((TIMESTAMP + 300) * 1000) }),
    ).toBeTruthy();
  });

  it('accepts what the standardwebhooks package signs, with one of two signatures or one of two secrets', async () => {
    const at = new Date();
    const body = '{"id":"evt_1","type":"ping","data":{"amount":"0.30"}}';
    const both = `${new Webhook(OTHER).sign('evt_1', at, body)} ${new Webhook(SECRET).sign('evt_1', at, body)}`;
    const given = headers(both, Math.floor(at.getTime() / 1000), 'evt_1');
    expect(await verifyWebhook(body, given, SECRET)).toMatchObject({ data: { amount: '0.30' } });
    expect(await verifyWebhook(body, given, OTHER)).toMatchObject({ type: 'ping' });
    const one = headers(
      new Webhook(SECRET).sign('evt_1', at, body),
      Math.floor(at.getTime() / 1000),
      'evt_1',
    );
    expect(await verifyWebhook(body, one, [OTHER, SECRET])).toMatchObject({ id: 'evt_1' });
  });

  it('refuses a tampered body, another secret, another id, a stale or future timestamp, missing headers', async () => {
    const tampered = PAYLOAD.replace('2432232314', '2432232315');
    expect(await reason(verifyWebhook(tampered, headers(SIGNATURE), SECRET, { now: AT }))).toBe('signature');
    expect(await reason(verifyWebhook(PAYLOAD, headers(SIGNATURE), OTHER, { now: AT }))).toBe('signature');
    expect(
      await reason(verifyWebhook(PAYLOAD, headers(SIGNATURE, TIMESTAMP, 'msg_x'), SECRET, { now: AT })),
    ).toBe('signature');
    expect(
      await reason(verifyWebhook(PAYLOAD, headers(`v2,${SIGNATURE.slice(3)}`), SECRET, { now: AT })),
    ).toBe('signature');
    expect(await reason(verifyWebhook(PAYLOAD, headers('v1,@@@'), SECRET, { now: AT }))).toBe('signature');
    for (const seconds of [TIMESTAMP + 301, TIMESTAMP - 301]) {
      const now = new Date(seconds * 1000);
      expect(await reason(verifyWebhook(PAYLOAD, headers(SIGNATURE), SECRET, { now }))).toBe('timestamp');
    }
    const noSignature = { 'webhook-id': MSG_ID, 'webhook-timestamp': String(TIMESTAMP) };
    expect(await reason(verifyWebhook(PAYLOAD, noSignature, SECRET, { now: AT }))).toBe('missing_header');
    const wide = { now: new Date((TIMESTAMP + 600) * 1000), toleranceSeconds: 600 };
    expect(await verifyWebhook(PAYLOAD, headers(SIGNATURE), SECRET, wide)).toBeTruthy();
    await expect(
      verifyWebhook(PAYLOAD, headers(SIGNATURE), 'whsec_not base64!', { now: AT }),
    ).rejects.toThrow(TypeError);
  });
});

describe.runIf(testStorage() === 'pglite')('TypeScript client: NUIT helper', () => {
  it('accepts valid numbers in the usual spellings', () => {
    for (const value of ['400339910', '400 339 910', '400-339-910', '400.005.834', ' 400005834 '])
      expect(isValidNuit(value), value).toBe(true);
  });

  it('computes the check digit: weights 8 9 4 5 6 7 8 9, modulo 11, 10 gives 1', () => {
    // 4*8 + 0*9 + 0*4 + 3*5 + 3*6 + 9*7 + 9*8 + 1*9 = 209 = 19 * 11: remainder 0.
    expect(nuitCheckDigit('40033991')).toBe('0');
    expect(nuitCheckDigit('40000583')).toBe('4');
    const weights = [8, 9, 4, 5, 6, 7, 8, 9];
    const tens = Array.from({ length: 200 }, (_, i) => String(100000 + i).padStart(8, '0')).filter(
      (digits) => weights.reduce((sum, w, i) => sum + w * Number(digits[i]), 0) % 11 === 10,
    );
    expect(tens.length).toBeGreaterThan(0);
    for (const digits of tens) {
      expect(nuitCheckDigit(digits)).toBe('1');
      expect(isValidNuit(`${digits}1`)).toBe(true);
    }
    expect(() => nuitCheckDigit('1234567')).toThrow(TypeError);
  });

  it('refuses other lengths, characters or check digits; compacts and formats', () => {
    for (const value of ['12345', '4003399100', '40033991A', '400339911', '', '４００３３９９１０'])
      expect(isValidNuit(value), value).toBe(false);
    expect(compactNuit(' 400 339-910. ')).toBe('400339910');
    expect(formatNuit('400-339-910')).toBe('400 339 910');
  });
});
