// The queue's store: a directory of the till's own (0700, its files 0600: the entries hold
// customers' names, NUITs and e-mails) with a lock and one append-only journal, a record a line as
// `<checksum> <json>\n`. A record is on disk (fsync) before the call that wrote it returns; a kill
// mid-write leaves at most a torn last line, whose checksum fails: it is cut off at the next open,
// never half applied. The first record holds a salted hash of the API key the store was made with.
// Node 20 has neither node:sqlite nor flock, hence a file and a lock file.
import { createHash, randomBytes } from 'node:crypto';
import { chmod, type FileHandle, link, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Entries, type JournalRecord } from './entries.js';

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
  records
    .map((record) => JSON.stringify(record))
    .map((text) => `${checksum(text)} ${text}\n`)
    .join('');

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
  readFile(file, 'utf8').then(
    (pid) => Number.parseInt(pid, 10),
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    },
  );

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
async function lock(directory: string): Promise<void> {
  const file = join(directory, 'lock');
  const guard = `${file}.takeover`;
  for (let round = 0; round < 20; round++) {
    if (await create(file)) return;
    const owner = await ownerOf(file);
    if (owner === null) continue; // released meanwhile
    if (alive(owner)) throw new StoreLockedError(directory, owner);
    if (await create(guard)) {
      try {
        // Still the same dead owner? Then its lock is moved away; ours is made on the next round.
        if ((await ownerOf(file)) === owner) await rename(file, `${file}.stale`).catch(() => undefined);
      } finally {
        await unlink(guard).catch(() => undefined);
      }
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

/** The store opened: its journal file (appended to and synced) and the entries it replays to. */
export class Journal {
  readonly entries = new Entries();
  /** Records in the file, the header among them. */
  private count = 0;

  private constructor(
    private readonly directory: string,
    private handle: FileHandle,
    private readonly header: Header,
  ) {}

  /** Opens (or makes) the store at `directory` for `apiKey`, a torn tail cut off. */
  static async open(directory: string, apiKey: string, now: number): Promise<Journal> {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await chmod(directory, 0o700); // also a store made looser before, or by hand
    await lock(directory);
    let handle: FileHandle | undefined;
    try {
      handle = await open(join(directory, 'journal.log'), 'a+', 0o600);
      await handle.chmod(0o600);
      const data = await handle.readFile();
      const { records, validBytes } = decodeRecords(data);
      if (validBytes < data.length) await handle.truncate(validBytes);
      await handle.sync();
      const salt = randomBytes(16).toString('hex');
      const made: Header = { t: 'open', v: 1, salt, key_hash: sha256(salt + apiKey), at: now };
      const first = records[0] as JournalRecord | undefined;
      const header = first?.t === 'open' ? first : made;
      if (sha256(header.salt + apiKey) !== header.key_hash)
        throw new StoreKeyMismatchError(
          `a fila em ${directory} foi criada com outra chave: use uma fila por caixa e por chave`,
        );
      const journal = new Journal(directory, handle, header);
      for (const record of records) journal.entries.apply(record as JournalRecord);
      journal.count = records.length;
      if (header === made) await journal.append(made);
      if (data.length === 0) await synced(directory); // the new file's name on disk too
      return journal;
    } catch (error) {
      await handle?.close();
      await unlock(directory);
      throw error;
    }
  }

  /** Writes `record` and syncs it, then applies it to the entries. */
  async append(record: JournalRecord): Promise<void> {
    await this.handle.write(encode([record]));
    await this.handle.sync();
    this.count++;
    this.entries.apply(record);
  }

  /**
   * Rewrites the journal as it is now (header, then the entries compacted) once that drops `after`
   * records or more: written aside and synced, then renamed over it and the directory synced. A
   * kill before the rename leaves the old journal whole; after it, the new one.
   */
  async compact(after: number): Promise<void> {
    // Each entry keeps a record at least: most flushes stop here, without walking the history.
    if (this.count - 1 - this.entries.byId.size < after) return;
    const records = [this.header, ...this.entries.compacted()];
    if (this.count - records.length < after) return;
    const file = join(this.directory, 'journal.log');
    await synced(`${file}.compacting`, encode(records));
    await rename(`${file}.compacting`, file);
    await synced(this.directory);
    await this.handle.close();
    this.handle = await open(file, 'a', 0o600);
    this.count = records.length;
  }

  async close(): Promise<void> {
    await this.handle.close();
    await unlock(this.directory);
  }
}

async function unlock(directory: string): Promise<void> {
  const file = join(directory, 'lock');
  if ((await ownerOf(file)) === process.pid) await unlink(file).catch(() => undefined);
}
