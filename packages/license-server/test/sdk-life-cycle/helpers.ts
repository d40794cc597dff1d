// Helpers of the client SDK life-cycle tests: a manual scheduler that moves a ManualClock instead of
// waiting, a fetch that can take the server away (or tamper with its answers), and a license client
// wired to a real license server through them.
import { hexEncode, ManualClock } from '@tollgate/core';
import { createLicenseClient, createMemoryStorage, type LicenseClient, type LicenseClientOptions, type LicenseStorage, type Scheduler } from '@tollgate/client-sdk';
import type { ClientBench } from '../client/client-harness';
import { defaultClientInfo } from '../client/client-harness';

/** Timers run by hand: `advance` moves the clock and runs what fell due, in order. */
export class ManualScheduler implements Scheduler {
  private tasks: { due: number; run: () => void; id: number }[] = [];
  private nextId = 0;
  constructor(readonly clock: ManualClock) {}

  after(delayMs: number, task: () => void): () => void {
    const id = this.nextId++;
    this.tasks.push({ due: this.clock.now() + Math.max(0, delayMs), run: task, id });
    return () => {
      this.tasks = this.tasks.filter((entry) => entry.id !== id);
    };
  }

  /** Milliseconds until the next task, or `undefined` when none is pending. */
  nextDelay(): number | undefined {
    const due = Math.min(...this.tasks.map((task) => task.due));
    return Number.isFinite(due) ? Math.max(0, due - this.clock.now()) : undefined;
  }

  /** Moves the clock `ms` forward, running each task that falls due (at its own time). */
  advance(ms: number): void {
    const end = this.clock.now() + ms;
    for (;;) {
      const next = [...this.tasks].sort((a, b) => a.due - b.due)[0];
      if (next === undefined || next.due > end) break;
      this.tasks = this.tasks.filter((task) => task.id !== next.id);
      if (next.due > this.clock.now()) this.clock.advance(next.due - this.clock.now());
      next.run();
    }
    if (end > this.clock.now()) this.clock.advance(end - this.clock.now());
  }

  /** How many tasks are pending. */
  get pending(): number {
    return this.tasks.length;
  }
}

/** A fetch in front of the real one: `down` makes every request fail as a network error would; `tamper` rewrites answers. */
export interface SwitchableFetch {
  fetch: typeof fetch;
  down: boolean;
  /** Paths asked for, in order. */
  readonly calls: string[];
  /** Request bodies sent, by path. */
  readonly sent: Map<string, Uint8Array[]>;
  tamper?: (path: string, body: Uint8Array) => Uint8Array | undefined;
}

export function switchableFetch(): SwitchableFetch {
  const control: SwitchableFetch = {
    down: false,
    calls: [],
    sent: new Map(),
    fetch: async (input, init) => {
      const path = new URL(typeof input === 'string' || input instanceof URL ? input : input.url).pathname;
      control.calls.push(path);
      const body = init?.body;
      if (body instanceof Uint8Array) control.sent.set(path, [...(control.sent.get(path) ?? []), new Uint8Array(body)]);
      if (control.down) throw new TypeError('fetch failed (test: the server is unreachable)');
      const response = await fetch(input, init);
      const tampered = control.tamper?.(path, new Uint8Array(await response.clone().arrayBuffer()));
      return tampered === undefined ? response : new Response(tampered as BodyInit, { status: response.status, headers: response.headers });
    },
  };
  return control;
}

/** What a life-cycle test drives: the client, its clock, timers, network and storage. */
export interface ClientRig {
  readonly client: LicenseClient;
  readonly clock: ManualClock;
  readonly scheduler: ManualScheduler;
  readonly network: SwitchableFetch;
  readonly storage: LicenseStorage;
  readonly states: string[];
  /** Another client on the same storage (an app restart), with its own network switch. */
  restart(overrides?: Partial<LicenseClientOptions>): ClientRig;
}

/** A license client of the bench's product, on a manual clock and scheduler. */
export function clientRig(bench: ClientBench, options: { fingerprint?: Uint8Array; storage?: LicenseStorage; clock?: ManualClock; overrides?: Partial<LicenseClientOptions> } = {}): ClientRig {
  const clock = options.clock ?? new ManualClock(Date.now());
  const scheduler = new ManualScheduler(clock);
  const network = switchableFetch();
  const storage = options.storage ?? createMemoryStorage();
  const fingerprint = options.fingerprint ?? crypto.getRandomValues(new Uint8Array(32));
  const client = createLicenseClient({
    baseUrl: bench.url,
    productId: bench.productId,
    pinnedRoots: bench.admin.server.context.pinnedRoots.map((root) => hexEncode(root)),
    storage,
    fingerprint,
    clientInfo: defaultClientInfo,
    clock,
    fetch: network.fetch,
    scheduler,
    random: () => 0.5,
    ...options.overrides,
  });
  const states: string[] = [];
  client.on('state', ({ state }) => states.push(state));
  return {
    client,
    clock,
    scheduler,
    network,
    storage,
    states,
    restart: (overrides = {}) => clientRig(bench, { fingerprint, storage, clock: new ManualClock(clock.now()), overrides }),
  };
}

/** A storage whose `save` or `clear` can be made to fail (a read-only directory, a file held by an antivirus). */
export interface FailingStorage {
  storage: LicenseStorage;
  failSave: boolean;
  failClear: boolean;
}

export function failingStorage(base: LicenseStorage): FailingStorage {
  const control: FailingStorage = {
    failSave: false,
    failClear: false,
    storage: {
      load: () => base.load(),
      save: (record: Uint8Array) => (control.failSave ? Promise.reject(new Error('EROFS (test: storage refuses to save)')) : base.save(record)),
      clear: () => (control.failClear ? Promise.reject(new Error('EBUSY (test: storage refuses to delete)')) : base.clear()),
    },
  };
  return control;
}
