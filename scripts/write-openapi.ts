// npm run openapi: writes openapi.json from the route schemas.
import { writeFileSync } from 'node:fs';
import { generateOpenApiDocument, serializeDocument } from '../src/openapi-document.js';

const target = new URL('../openapi.json', import.meta.url);
writeFileSync(target, serializeDocument(await generateOpenApiDocument()));
console.log(`wrote ${target.pathname}`);
