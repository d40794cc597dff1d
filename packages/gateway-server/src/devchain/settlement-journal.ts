import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { writeFileAtomically } from './chain-state';

/**
 * What the dev facilitator did with a settlement transaction: `broadcast` (sent to anvil, outcome not
 * yet answered) or `answered` (a snapshot holding it was on disk, then its success was answered).
 */
export type JournalStage = 'broadcast' | 'answered';

/** One line of the journal. */
export interface JournalEntry {
  readonly tx: string;
  readonly stage: JournalStage;
}

/** How many of the last journal lines a restart checks against the chain. */
export const journalCheckLimit = 5_000;

/**
 * An append-only file of the settlement transactions the dev facilitator sent since the dev stack last
 * started, each line written and fsynced before the step it records goes on. It survives a hard kill
 * of anvil (it is ours, not anvil's), so a restart can tell which settlements the restored chain lost.
 *
 * @param path - The journal file (`<dataDir>/chain/settlements.jsonl`).
 * @returns `append`, `read` (the last {@link journalCheckLimit} entries; a torn last line is ignored)
 *   and `reset` (empties it, atomically).
 * @example
 * ```ts
 * const journal = openSettlementJournal('.tollgate/devchain/chain/settlements.jsonl');
 * journal.append({ tx: '0xabc…', stage: 'broadcast' });
 * ```
 */
export function openSettlementJournal(path: string): { append(entry: JournalEntry): void; read(): JournalEntry[]; reset(): void } {
  return {
    append(entry) {
      const fd = openSync(path, 'a');
      try {
        writeSync(fd, `${JSON.stringify(entry)}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    },
    read() {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      const entries: JournalEntry[] = [];
      for (const line of text.split('\n').slice(-journalCheckLimit - 1)) {
        try {
          const entry = JSON.parse(line) as Partial<JournalEntry>;
          if (typeof entry.tx === 'string' && (entry.stage === 'broadcast' || entry.stage === 'answered')) entries.push({ tx: entry.tx, stage: entry.stage });
        } catch {
          // An empty or torn line (a kill during the append): that step never went on.
        }
      }
      return entries;
    },
    reset() {
      writeFileAtomically(path, '');
    },
  };
}
