// Setup of every vitest project: `vi.waitFor` waits up to 30 s unless a test says otherwise. It waits for
// an event (a state the code reaches), so its deadline only bounds a failure; vitest's default of 1 s
// made the wait itself race the clock on a loaded machine (seen: a license-client test that reached
// `locked` after 1.1 s under CI load). See docs/testing.md.
import { vi } from 'vitest';

const patched = Symbol.for('tollgate.waitForDefault');
const target = vi as typeof vi & { [patched]?: true };
if (target[patched] !== true) {
  const original = vi.waitFor.bind(vi);
  target.waitFor = ((callback, options) => original(callback, typeof options === 'number' ? options : { timeout: 30_000, ...options })) as typeof vi.waitFor;
  target[patched] = true;
}
