// Generates src/generated/openapi.ts from the repository's openapi.json with openapi-typescript.
// `npm run generate -w @invoicing/partner-api` writes the file; the drift test
// (test/clients/generated-types.unit.test.ts) calls generateTypes() and compares with the committed file.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

export const OPENAPI_FILE = fileURLToPath(new URL('../../../openapi.json', import.meta.url));
export const GENERATED_FILE = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));

/** The generated module's text, from the openapi.json as it is now. */
export async function generateTypes(): Promise<string> {
  const schema = JSON.parse(await readFile(OPENAPI_FILE, 'utf8')) as Parameters<typeof openapiTS>[0];
  const ast = await openapiTS(schema, { alphabetize: false, immutable: false });
  return `${COMMENT_HEADER}${astToString(ast)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(GENERATED_FILE, await generateTypes());
  console.log(`wrote ${GENERATED_FILE}`);
}
