import { describe, expect, it, vi } from 'vitest';

describe('vi.waitFor in this repository', () => {
  it('waits past vitest default of one second: it waits for the event, the deadline only bounds a failure', async () => {
    let ready = false;
    setTimeout(() => (ready = true), 1_500);
    await vi.waitFor(() => expect(ready).toBe(true));
  });

  it('keeps a deadline a test gives', async () => {
    await expect(vi.waitFor(() => expect(false).toBe(true), { timeout: 100, interval: 20 })).rejects.toThrow();
  });
});
