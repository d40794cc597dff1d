/**
 * Test helpers that return the error a call throws, so a test can assert on its code, reason and
 * details. They fail the test when nothing is thrown or when another kind of error is.
 */
export function thrownBy<E extends Error>(errorClass: abstract new (...args: never[]) => E, run: () => unknown): E {
  try {
    run();
  } catch (error) {
    if (error instanceof errorClass) return error;
    throw error;
  }
  throw new Error(`expected a ${errorClass.name} to be thrown`);
}

/** Like {@link thrownBy} for a promise that must reject. */
export async function rejectedWith<E extends Error>(errorClass: abstract new (...args: never[]) => E, promise: Promise<unknown>): Promise<E> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof errorClass) return error;
    throw error;
  }
  throw new Error(`expected a ${errorClass.name} rejection`);
}
