// Where the repository is, for the harnesses that start its programs (the benchmark, the rehearsals).
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const invoicingBin = `${repoRoot}bin/invoicing`;
