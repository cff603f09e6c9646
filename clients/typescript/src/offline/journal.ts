// The queue's store on disk: one append-only file of records, one a line, each line
// `<checksum> <json>\n`. A record is on disk (fsync) before the call that wrote it returns; a
// process killed while writing leaves at most a torn last line, whose checksum fails: it is cut
// off at the next open, never half applied. Node 20 has no node:sqlite, hence a file.
import { createHash } from 'node:crypto';
import { chmod, type FileHandle, open, readFile, rename, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';

/** 16 hex digits of the SHA-256 of the record's JSON text. */
function checksum(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

export function encodeRecord(record: object): string {
  const text = JSON.stringify(record);
  return `${checksum(text)} ${text}\n`;
}

/** The valid records of a journal's text, and the byte length of that valid prefix. */
export function decodeRecords(data: Buffer): { records: unknown[]; validBytes: number } {
  const records: unknown[] = [];
  let offset = 0;
  for (;;) {
    const end = data.indexOf(0x0a, offset);
    if (end < 0) break; // a last line without its newline was torn
    const line = data.subarray(offset, end).toString('utf8');
    const space = line.indexOf(' ');
    const text = line.slice(space + 1);
    if (space !== 16 || checksum(text) !== line.slice(0, 16)) break;
    try {
      records.push(JSON.parse(text));
    } catch {
      break;
    }
    offset = end + 1;
  }
  return { records, validBytes: offset };
}

export class Journal {
  private constructor(
    private readonly file: string,
    private handle: FileHandle,
  ) {}

  /** Reads the journal (made when missing), cuts a torn tail off, and opens it for appending. */
  static async open(file: string): Promise<{ journal: Journal; records: unknown[]; created: boolean }> {
    let data: Buffer;
    let created = false;
    try {
      data = await readFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      data = Buffer.alloc(0);
      created = true;
    }
    const { records, validBytes } = decodeRecords(data);
    if (validBytes < data.length) await truncate(file, validBytes);
    // The store holds customers' names, NUITs and e-mails: the owner's only (0600), also when an
    // older version made the file readable by others.
    const handle = await open(file, 'a', 0o600);
    await chmod(file, 0o600);
    if (validBytes < data.length) await handle.sync();
    return { journal: new Journal(file, handle), records, created };
  }

  /** Appends the records and syncs them to disk before returning. */
  async append(...records: object[]): Promise<void> {
    await this.handle.write(records.map(encodeRecord).join(''));
    await this.handle.sync();
  }

  /**
   * Replaces the journal by `records`: written aside (0600) and synced, then renamed over it and the
   * directory synced. A kill before the rename leaves the old journal whole; after it, the new one.
   */
  async rewrite(records: object[]): Promise<void> {
    const aside = `${this.file}.compacting`;
    const handle = await open(aside, 'w', 0o600);
    try {
      await handle.write(records.map(encodeRecord).join(''));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(aside, this.file);
    await syncDirectory(dirname(this.file));
    await this.handle.close();
    this.handle = await open(this.file, 'a', 0o600);
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

/** Syncs a directory, so that a file just made in it survives a crash. */
export async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
