// The reviewed corrections of the released document (api/corrections.json). The baseline stays as
// released; where the document described the API more loosely than it always behaved (a maximum
// the API always enforced, a `null` it always refused), the regenerated document says so, and the
// gate's finding there is accepted, with its reason printed, instead of failing the build. An entry
// that matches no finding fails the gate as stale, so the list only ever holds what a reviewer
// accepted for a change still in the document.
import type { Finding } from './compare.js';

export interface Correction {
  /** The finding's path exactly as `npm run api:compat` prints it. */
  path: string;
  /** Why this is a correction of the document and not a change of the API. */
  reason: string;
  /** Optional: only the finding with this message is accepted, not every one at the path. */
  message?: string;
}

export interface Judgement {
  /** Findings no correction accepts: breaking. */
  breaking: Finding[];
  accepted: { finding: Finding; correction: Correction }[];
  /** Corrections that matched no finding. */
  stale: Correction[];
}

/** Reads api/corrections.json's text; a malformed list throws, naming what is wrong and where. */
export function parseCorrections(text: string, source: string): Correction[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not JSON (${(error as Error).message})`);
  }
  const corrections = (value as { corrections?: unknown } | null)?.corrections;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Array.isArray(corrections))
    throw new Error(`${source}: expected { "corrections": [ { "path": "...", "reason": "..." } ] }`);
  const extra = Object.keys(value).filter((key) => key !== 'corrections');
  if (extra.length > 0) throw new Error(`${source}: unknown key ${extra.join(', ')}`);
  const seen = new Set<string>();
  return corrections.map((entry: unknown, index) => {
    const at = `${source}: corrections[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new Error(`${at} is not an object`);
    const { path, reason, message, ...rest } = entry as Record<string, unknown>;
    if (Object.keys(rest).length > 0) throw new Error(`${at}: unknown key ${Object.keys(rest).join(', ')}`);
    if (typeof path !== 'string' || !path.startsWith('$'))
      throw new Error(`${at}: "path" must be a JSON path ($...)`);
    if (typeof reason !== 'string' || reason.trim().length < 10)
      throw new Error(`${at} (${path}): "reason" must say why this is a correction (10 characters at least)`);
    if (message !== undefined && typeof message !== 'string')
      throw new Error(`${at}: "message" must be text`);
    const key = JSON.stringify([path, message ?? null]);
    if (seen.has(key)) throw new Error(`${at}: ${path} is listed twice`);
    seen.add(key);
    return message === undefined ? { path, reason } : { path, reason, message };
  });
}

const matches = (correction: Correction, finding: Finding) =>
  correction.path === finding.path &&
  (correction.message === undefined || correction.message === finding.message);

/** Splits a document's findings into breaking and accepted, and names the stale corrections. */
export function judge(findings: Finding[], corrections: Correction[]): Judgement {
  const judgement: Judgement = { breaking: [], accepted: [], stale: [] };
  for (const finding of findings) {
    const correction = corrections.find((each) => matches(each, finding));
    if (correction) judgement.accepted.push({ finding, correction });
    else judgement.breaking.push(finding);
  }
  judgement.stale = corrections.filter(
    (correction) => !findings.some((finding) => matches(correction, finding)),
  );
  return judgement;
}
