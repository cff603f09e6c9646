// The files of a folder, at any depth, whose names end as asked: what the tests that read the
// project's own sources (the architecture, the suite's names, the refusals) walk.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export function filesUnder(dir: string, ending: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path, ending);
    return entry.name.endsWith(ending) ? [path] : [];
  });
}
