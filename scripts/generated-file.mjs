// What the scripts that generate checked-in files share: write the file, or with --check exit 1 when the
// checked-in copy differs from what the sources generate (so a test or CI step can catch a stale copy).
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Writes `text` to `target`, or, when the command line has `--check`, compares them and exits 1 on a
 * difference (a missing file differs).
 *
 * @param {string} target - Absolute path of the generated file.
 * @param {string} text - What the sources generate.
 * @param {{ name: string, regenerate: string }} labels - The file's name and the command that rewrites it, for the messages.
 */
export function writeOrCheck(target, text, labels) {
  if (!process.argv.includes('--check')) {
    writeFileSync(target, text);
    process.stdout.write(`wrote ${target} (${text.length} bytes)\n`);
    return;
  }
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // a missing file differs
  }
  if (current !== text) {
    process.stderr.write(`${labels.name} is out of date: run ${labels.regenerate} and review the diff.\n`);
    process.exit(1);
  }
  process.stdout.write(`${labels.name} is up to date.\n`);
}
