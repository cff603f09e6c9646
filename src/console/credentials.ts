// Passwords and second factors of the console's people. Passwords: argon2id (@node-rs/argon2,
// prebuilt native binaries for Node 20 to 24, the OWASP-recommended memory-hard hash), at least 12
// characters. Second factor: TOTP (RFC 6238, otplib: 30-second steps, 6 digits, SHA-1, what every
// authenticator app reads), a code accepted once (the last step used is kept), one step of drift
// either way. The enrolment QR code is an SVG made on the server (qrcode), shown without script.
import { hash, verify } from '@node-rs/argon2';
import { generateSecret, generateURI, verify as verifyTotp } from 'otplib';
import QRCode from 'qrcode';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;
const ISSUER = 'Invoicing console';

/** OWASP's argon2id minimum (19 MiB, 2 passes) comfortably exceeded. */
// `algorithm: 2` is Algorithm.Argon2id (an ambient const enum, which this build cannot import).
const ARGON2 = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

/** A hash of nothing anyone types: an unknown e-mail costs the same time as a wrong password. */
let decoy: Promise<string> | null = null;

export async function passwordMatches(stored: string | null, password: string): Promise<boolean> {
  decoy ??= hash('decoy password that nobody types', ARGON2);
  const target = stored ?? (await decoy);
  try {
    const matches = await verify(target, password);
    return stored !== null && matches;
  } catch {
    return false;
  }
}

export function newTotpSecret(): string {
  return generateSecret();
}

export function totpUri(secret: string, email: string): string {
  return generateURI({ issuer: ISSUER, label: email, secret });
}

export function totpQrSvg(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

/** The time step of a valid code newer than `afterStep`, or null. */
export async function totpStep(
  secret: string,
  code: string,
  afterStep: number | null,
): Promise<number | null> {
  const token = code.replace(/\s+/g, '');
  if (!/^[0-9]{6}$/.test(token)) return null;
  try {
    const result = await verifyTotp({
      secret,
      token,
      epochTolerance: 30,
      ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
    });
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  } catch {
    return null;
  }
}
