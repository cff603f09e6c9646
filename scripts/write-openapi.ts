// npm run openapi: writes openapi.json (Portuguese) and openapi.en.json (English) from the route
// schemas, the code samples (docs/samples) and the webhook events (src/docs/reference.ts).
import { writeFileSync } from 'node:fs';
import { generateOpenApiDocuments, serializeDocument } from '../src/openapi-document.js';

const documents = await generateOpenApiDocuments();
for (const [file, document] of [
  ['../openapi.json', documents.pt],
  ['../openapi.en.json', documents.en],
] as const) {
  const target = new URL(file, import.meta.url);
  writeFileSync(target, serializeDocument(document));
  console.log(`wrote ${target.pathname}`);
}
