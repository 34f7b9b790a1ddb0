import { readFileSync, statSync } from 'node:fs';

/**
 * A file's text, or null when it cannot be read (missing, a directory, no permission). With
 * `limit`, also null for anything but a regular file of at most `limit` bytes (a FIFO would
 * block the read, a huge file would cost more than the call).
 */
export function readOrNull(file: string, limit?: number): string | null {
  try {
    if (limit !== undefined) {
      const st = statSync(file);
      if (!st.isFile() || st.size > limit) return null;
    }
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
