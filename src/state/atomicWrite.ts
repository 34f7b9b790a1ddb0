import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

interface AtomicWriteOptions {
  /** The new file's mode (before the umask); default 0o666 as writeFileSync. */
  mode?: number;
  /** The mode of a parent directory this creates. */
  dirMode?: number;
  /** Flush the bytes to disk before the rename (a cache entry a crash must not leave zeroed). */
  fsync?: boolean;
}

/**
 * The one temp-file-and-rename write: a reader (a parallel hook call, the CLI) sees the old file
 * or the new one, never a torn one. Creates the parent directory; a failed write leaves no temp
 * file behind and throws.
 */
export function writeAtomic(file: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  mkdirSync(dirname(file), opts.dirMode === undefined ? { recursive: true } : { recursive: true, mode: opts.dirMode });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    const fd = openSync(tmp, 'w', opts.mode ?? 0o666);
    try {
      writeFileSync(fd, data);
      if (opts.fsync === true) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
