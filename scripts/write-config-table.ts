// `npm run config:table`: writes the README's configuration table from the declarations of
// src/config-variables.ts (test/config.unit.test.ts fails when the README's copy is stale).
import { readFileSync, writeFileSync } from 'node:fs';
import { configurationTable } from '../src/config-variables.js';
import { replaceConfigurationTable } from './lib/config-table.js';

const path = new URL('../README.md', import.meta.url);
writeFileSync(path, replaceConfigurationTable(readFileSync(path, 'utf8'), configurationTable()));
process.stdout.write('README.md: configuration table written\n');
