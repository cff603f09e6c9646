// In the repository the program type-checks against the client package's copy of what
// openapi-typescript makes of openapi.json (kept current by generated-types.unit.test.ts); the
// test replaces this file with a fresh generation beside a copy of the program.
export type { components, paths } from '../../../clients/typescript/src/generated/openapi.js';
