// The queue's store: a directory of the till's own (0700, its files 0600: the entries hold
// customers' names, NUITs and e-mails) with a lock and one append-only journal, a record a line as
// `<checksum> <json>\n`. A record is on disk (fsync) before the call that wrote it returns; a kill
// mid-write leaves at most a torn last line, whose checksum fails: it is cut off at the next open,
// never half applied. The first record holds a salted hash of the API key the store was made with.
// Node 20 has neither node:sqlite nor flock, hence a file and a lock file.
import { createHash, randomBytes } from 'node:crypto';
import {
  chmod,
  type FileHandle,
  link,
  mkdir,
  open,
  readFile,
  rename,
  stat,
  truncate,
  unlink,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { JournalRecord } from './entries.js';

type Header = Extract<JournalRecord, { t: 'open' }>;

export class StoreLockedError extends Error {
  override readonly name = 'StoreLockedError';
  constructor(
    readonly path: string,
    readonly pid: number,
  ) {
    super(`a fila em ${path} está em uso pelo processo ${pid}`);
  }
}

export class StoreKeyMismatchError extends Error {
  override readonly name = 'StoreKeyMismatchError';
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const checksum = (text: string): string => sha256(text).slice(0, 16);
const encode = (records: object[]): string =>
  records.map((record) => `${checksum(JSON.stringify(record))} ${JSON.stringify(record)}\n`).join('');
const missing = (error: NodeJS.ErrnoException): null => {
  if (error.code === 'ENOENT') return null;
  throw error;
};

/** The valid records of a journal's bytes, and the length of that valid prefix. */
export function decodeRecords(data: Buffer): { records: unknown[]; validBytes: number } {
  const records: unknown[] = [];
  let offset = 0;
  // A last line without its newline, or whose checksum fails, was torn.
  for (let end = data.indexOf(0x0a); end >= 0; end = data.indexOf(0x0a, offset)) {
    const line = data.subarray(offset, end).toString('utf8');
    if (line[16] !== ' ' || checksum(line.slice(17)) !== line.slice(0, 16)) break;
    records.push(JSON.parse(line.slice(17)));
    offset = end + 1;
  }
  return { records, validBytes: offset };
}

/** Writes `text` to `path` (0600, replaced) or, without text, opens it: synced when it returns. */
async function synced(path: string, text?: string): Promise<void> {
  const handle = await open(path, text === undefined ? 'r' : 'w', 0o600);
  try {
    if (text !== undefined) await handle.write(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes `file` holding our pid, whole at once (written aside, then linked): false when it exists. */
async function create(file: string): Promise<boolean> {
  const aside = `${file}.${process.pid}`;
  await synced(aside, String(process.pid));
  return link(aside, file)
    .then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') return false;
        throw error;
      },
    )
    .finally(() => unlink(aside).catch(() => undefined));
}

const ownerOf = (file: string): Promise<number | null> =>
  readFile(file, 'utf8').then((pid) => Number.parseInt(pid, 10), missing);

function alive(pid: number): boolean {
  try {
    return pid > 0 && process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One process per store: a lock file holding the owner's pid. One whose pid no longer runs (the
 * till was killed) is taken over, through a second exclusive file, so that two processes never
 * both take one stale lock; a live one refuses the open.
 */
async function lock(directory: string): Promise<string> {
  const file = join(directory, 'lock');
  const guard = `${file}.takeover`;
  for (let round = 0; round < 20; round++) {
    if (await create(file)) return file;
    const owner = await ownerOf(file);
    if (owner === null) continue; // released meanwhile
    if (alive(owner)) throw new StoreLockedError(directory, owner);
    if (await create(guard)) {
      // Still the same dead owner? Then its lock is moved away; ours is made on the next round.
      if ((await ownerOf(file)) === owner) await rename(file, `${file}.stale`).catch(() => undefined);
      await unlink(guard).catch(() => undefined);
      continue;
    }
    // A guard left by a process killed during its takeover is old after 10 s.
    const age = await stat(guard).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > 10_000) await unlink(guard).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`não foi possível obter o bloqueio da fila em ${directory}`);
}

export class Journal {
  private constructor(
    private readonly file: string,
    private readonly lockFile: string,
    private handle: FileHandle,
    private readonly header: Header,
    /** Records in the file, the header among them. */
    public count: number,
  ) {}

  /** Opens (or makes) the store at `directory` for `apiKey`: its records, a torn tail cut off. */
  static async open(directory: string, apiKey: string, now: number) {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await chmod(directory, 0o700); // also a folder made looser before, or by hand
    const lockFile = await lock(directory);
    try {
      const file = join(directory, 'journal.log');
      const data = await readFile(file).catch(missing);
      const { records, validBytes } = decodeRecords(data ?? Buffer.alloc(0));
      if (data && validBytes < data.length) await truncate(file, validBytes);
      const handle = await open(file, 'a', 0o600);
      await chmod(file, 0o600);
      await handle.sync();
      const salt = randomBytes(16).toString('hex');
      const made: Header = { t: 'open', v: 1, salt, key_hash: sha256(salt + apiKey), at: now };
      const first = records[0] as JournalRecord | undefined;
      const header = first?.t === 'open' ? first : made;
      if (sha256(header.salt + apiKey) !== header.key_hash) {
        await handle.close();
        throw new StoreKeyMismatchError(
          `a fila em ${directory} foi criada com outra chave: use uma fila por caixa e por chave`,
        );
      }
      const journal = new Journal(file, lockFile, handle, header, records.length);
      if (header === made) {
        await journal.append(made);
        if (data === null) await synced(directory); // the new file's name on disk too
      }
      return { journal, records: records as JournalRecord[] };
    } catch (error) {
      await unlock(lockFile);
      throw error;
    }
  }

  async append(record: JournalRecord): Promise<void> {
    await this.handle.write(encode([record]));
    await this.handle.sync();
    this.count++;
  }

  /**
   * Replaces the journal by its header and `records`: written aside and synced, then renamed over
   * it and the directory synced. A kill before the rename leaves the old journal whole; after, the new.
   */
  async rewrite(records: JournalRecord[]): Promise<void> {
    await synced(`${this.file}.compacting`, encode([this.header, ...records]));
    await rename(`${this.file}.compacting`, this.file);
    await synced(dirname(this.file));
    await this.handle.close();
    this.handle = await open(this.file, 'a', 0o600);
    this.count = records.length + 1;
  }

  async close(): Promise<void> {
    await this.handle.close();
    await unlock(this.lockFile);
  }
}

async function unlock(file: string): Promise<void> {
  if ((await ownerOf(file)) === process.pid) await unlink(file).catch(() => undefined);
}
