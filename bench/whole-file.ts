import { renameSync, writeFileSync } from 'node:fs';

/**
 * Writes `text` to `file` so that a reader never sees part of it: written beside it, then renamed
 * into place. The bench's preloads write what they counted while `countUnderLoad` polls for the
 * file; a heap profile of tens of MB read half-written once failed to parse.
 */
export function writeWholeFile(file: string, text: string): void {
  writeFileSync(`${file}.part`, text);
  renameSync(`${file}.part`, file);
}
