// An outside generator takes openapi.json as it is: openapi-typescript makes the types, and a
// partner's program on openapi-fetch (test/clients/generated-client/program.ts: three routes, a 4xx
// decided by `error.code`, a 5xx by its status, no casts) type-checks with strict tsc and runs
// against a real server. The envelope and the generic 500/503 body are two shapes a typed client
// must tell apart: the document gives the generic one a `statusCode` equal to its status.
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListeningApp, startListeningApp } from '../helpers/client-server.js';
import { createTenant, type Tenant } from '../helpers/context.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PROGRAM = fileURLToPath(new URL('./generated-client/program.ts', import.meta.url));
const GUIDES = {
  pt: ['docs/site/pt/guia.md', '## Um cliente gerado do OpenAPI'],
  en: ['docs/site/en/guide.md', '## A client generated from the OpenAPI'],
} as const;

/** The TypeScript example of the guide's section, with what it leaves to the reader declared. */
async function guideExample(file: string, heading: string): Promise<string> {
  const text = await readFile(join(ROOT, file), 'utf8');
  const section = text.slice(text.indexOf(heading));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error(`no TypeScript example under ${heading} in ${file}`);
  const declared =
    'declare const baseUrl: string;\ndeclare const apiKey: string;\ndeclare function sleep(ms: number): Promise<void>;\n';
  const lines = code.split('\n');
  const imports = lines.filter((line) => line.startsWith('import '));
  return [...imports, declared, ...lines.filter((line) => !line.startsWith('import ')), 'export {};'].join(
    '\n',
  );
}

type Program = typeof import('./generated-client/program.js');

describe('openapi.json through an outside generator (openapi-typescript + openapi-fetch)', () => {
  let folder: string;
  let server: ListeningApp;
  let tenant: Tenant;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'generated-client-'));
    const document = (await import(join(ROOT, 'openapi.json'), { with: { type: 'json' } })).default;
    const ast = await openapiTS(document as Parameters<typeof openapiTS>[0]);
    await writeFile(join(folder, 'schema.ts'), astToString(ast));
    await copyFile(PROGRAM, join(folder, 'program.ts'));
    for (const [lang, [file, heading]] of Object.entries(GUIDES))
      await writeFile(join(folder, `guide-${lang}.ts`), await guideExample(file, heading));
    await symlink(join(ROOT, 'node_modules'), join(folder, 'node_modules'), 'dir');
    await writeFile(join(folder, 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(
      join(folder, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2022', 'DOM'],
          types: [],
          skipLibCheck: true,
          outDir: 'out',
        },
        files: ['program.ts', 'guide-pt.ts', 'guide-en.ts'],
      }),
    );
    server = await startListeningApp();
    tenant = await createTenant(server.db, { name: 'Cliente Gerado' });
  });
  afterAll(async () => {
    await server?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it("the program and the guide's example (PT, EN) type-check with strict tsc, and the program runs: a 4xx decided by code, the envelope told from the generic 5xx body", async () => {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const compiled = await promisify(execFile)(process.execPath, [tsc, '-p', folder], { cwd: folder }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(compiled).toBe('');

    const program = (await import(pathToFileURL(join(folder, 'out/program.js')).href)) as Program;
    const report = await program.run(server.baseUrl, tenant.key, String(Date.now()));
    expect(report.company).toBe('Cliente Gerado');
    expect(report.created).toBeGreaterThan(0);
    expect(report.refused).toEqual({ kind: 'refused', code: 'validation_failed', fields: ['email'] });
    expect(report.missing).toEqual({ kind: 'missing', code: 'resource_not_found' });

    // The 5xx branches, with the bodies and headers error-handler.ts sends.
    const busy = new Response('', { status: 503, headers: { 'Retry-After': '2' } });
    expect(
      program.explain(
        { statusCode: 503, error: 'Service Unavailable', message: 'Service Unavailable' },
        busy,
      ),
    ).toEqual({ kind: 'retry-later', status: 503, afterSeconds: 2 });
    const failed = new Response('', { status: 500, headers: { 'X-Request-Id': 'req_1' } });
    expect(
      program.explain(
        { statusCode: 500, error: 'Internal Server Error', message: 'Internal Server Error' },
        failed,
      ),
    ).toEqual({ kind: 'failed', status: 500, requestId: 'req_1' });
  });
});
