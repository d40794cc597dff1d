/** Where the CLI writes; `stdout` may be awaited so long exports respect the pipe's back-pressure. */
export interface CliStreams {
  stdout(text: string): void | Promise<void>;
  stderr(text: string): void;
}

/** One column of a human table: its heading and how to read the cell from a row. */
export interface TableColumn {
  readonly heading: string;
  readonly cell: (row: Readonly<Record<string, unknown>>) => unknown;
}

/** A cell as text: `-` for null/absent, JSON for objects, the value otherwise. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'object') return JSON.stringify(value);
  // Control characters from server data must not move the terminal's cursor or recolour it.
  return String(value).replace(/[\u0000-\u001f\u007f]/g, ' ');
}

/**
 * Renders rows as a left-aligned text table with a heading line, columns separated by two spaces.
 *
 * @param rows - The rows (server objects).
 * @param columns - What to show.
 * @returns The table, ending in a newline.
 * @example
 * ```ts
 * renderTable([{ id: 'a', status: 'active' }], [{ heading: 'ID', cell: (r) => r.id }, { heading: 'STATUS', cell: (r) => r.status }]);
 * // 'ID  STATUS\na   active\n'
 * ```
 */
export function renderTable(rows: readonly Readonly<Record<string, unknown>>[], columns: readonly TableColumn[]): string {
  const cells = rows.map((row) => columns.map((column) => cellText(column.cell(row))));
  const widths = columns.map((column, index) => Math.max(column.heading.length, ...cells.map((line) => (line[index] as string).length)));
  const line = (texts: readonly string[]) => `${texts.map((text, index) => (index === texts.length - 1 ? text : text.padEnd(widths[index] as number))).join('  ')}\n`;
  return line(columns.map((column) => column.heading)) + cells.map(line).join('');
}

/**
 * Renders one object as aligned `key  value` lines (nested objects as JSON).
 *
 * @param record - The object.
 * @returns The lines.
 */
export function renderRecord(record: Readonly<Record<string, unknown>>): string {
  const keys = Object.keys(record);
  const width = Math.max(0, ...keys.map((key) => key.length));
  return keys.map((key) => `${key.padEnd(width)}  ${cellText(record[key])}\n`).join('');
}

/** How a command prints its result: one JSON document with `--json`, human text otherwise. */
export interface CommandOutput {
  readonly json: boolean;
  /** Whether a result was printed: with `--json` a later error must not add a second document. */
  readonly printed: boolean;
  /** Prints `document` as JSON (with `--json`) or `human()` otherwise. */
  result(document: unknown, human: () => string): Promise<void>;
  /** A note for people (stderr), never part of the machine output. */
  note(text: string): void;
}

/**
 * Builds the output of one command run.
 *
 * @param streams - stdout and stderr.
 * @param json - Whether `--json` was given.
 * @returns The output.
 */
export function createCommandOutput(streams: CliStreams, json: boolean): CommandOutput {
  let printed = false;
  return {
    json,
    get printed() {
      return printed;
    },
    async result(document, human) {
      printed = true;
      await streams.stdout(json ? `${JSON.stringify(document, null, 2)}\n` : human());
    },
    note(text) {
      streams.stderr(`${text}\n`);
    },
  };
}
