// One process per store: a lock file made with O_EXCL holding the owner's pid. A lock whose pid
// is no longer running (the till was killed) is taken over; a live one refuses the open. Taking
// over goes through a second exclusive file, so two processes never both take one stale lock.
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export class StoreLockedError extends Error {
  override readonly name = 'StoreLockedError';
  constructor(
    readonly path: string,
    readonly pid: number,
  ) {
    super(`a fila em ${path} está em uso pelo processo ${pid}`);
  }
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Makes `file` holding our pid, atomically (written aside, then linked): false when it exists. */
async function create(file: string): Promise<boolean> {
  const aside = `${file}.${process.pid}`;
  const handle = await open(aside, 'w', 0o600);
  try {
    await handle.write(String(process.pid));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(aside, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(aside).catch(() => undefined);
  }
}

async function ownerOf(file: string): Promise<number | null> {
  try {
    return Number.parseInt(await readFile(file, 'utf8'), 10);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** A takeover guard left by a process killed during its takeover is old after this long. */
const GUARD_STALE_MS = 10_000;

export class StoreLock {
  private constructor(private readonly file: string) {}

  static async acquire(directory: string): Promise<StoreLock> {
    const file = join(directory, 'lock');
    for (let round = 0; round < 20; round++) {
      if (await create(file)) return new StoreLock(file);
      const owner = await ownerOf(file);
      if (owner === null) continue; // released meanwhile
      if (alive(owner)) throw new StoreLockedError(directory, owner);
      const guard = `${file}.takeover`;
      if (!(await create(guard))) {
        const since = await stat(guard).then(
          (s) => Date.now() - s.mtimeMs,
          () => 0,
        );
        if (since > GUARD_STALE_MS) await unlink(guard).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      try {
        // Still the same dead owner? Then move its lock away; ours is made on the next round.
        if ((await ownerOf(file)) === owner) {
          await rename(file, `${file}.stale`).catch(() => undefined);
        }
      } finally {
        await unlink(guard).catch(() => undefined);
      }
    }
    throw new Error(`não foi possível obter o bloqueio da fila em ${directory}`);
  }

  async release(): Promise<void> {
    if ((await ownerOf(this.file)) === process.pid) await unlink(this.file).catch(() => undefined);
  }
}
