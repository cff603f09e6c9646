// NUIT (Número Único de Identificação Tributária, Mozambique's tax number): 9 digits, the first
// the kind of taxpayer, the last a check digit. The check digit follows the algorithm python-stdnum
// publishes for `stdnum.mz.nuit`: the first eight digits weighted 8, 9, 4, 5, 6, 7, 8, 9, summed,
// modulo 11; a remainder of 10 gives the digit 1.
//
// A warning aid, never proof: a NUIT that passes may still belong to nobody, or to someone else,
// and the API accepts any text as `nuit` (it does not check it). Use it to ask a person to look
// again at what they typed.

const WEIGHTS = [8, 9, 4, 5, 6, 7, 8, 9] as const;

/** The NUIT without the spaces, dots and dashes people write in it: `"400 339 910"` -> `"400339910"`. */
export function compactNuit(value: string): string {
  return value.replace(/[ .-]/g, '').trim();
}

/** The check digit of the first eight digits. */
export function nuitCheckDigit(firstEight: string): string {
  if (!/^[0-9]{8}$/.test(firstEight))
    throw new TypeError('nuitCheckDigit takes the first 8 digits of a NUIT');
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += (WEIGHTS[i] ?? 0) * Number(firstEight[i]);
  return '01234567891'.charAt(sum % 11);
}

/** Nine digits (once compacted) whose last is the check digit of the others. */
export function isValidNuit(value: string): boolean {
  const nuit = compactNuit(value);
  return /^[0-9]{9}$/.test(nuit) && nuitCheckDigit(nuit.slice(0, 8)) === nuit.charAt(8);
}

/** The usual presentation in three groups: `"400339910"` -> `"400 339 910"`. */
export function formatNuit(value: string): string {
  const nuit = compactNuit(value);
  return `${nuit.slice(0, 3)} ${nuit.slice(3, -3)} ${nuit.slice(-3)}`;
}
