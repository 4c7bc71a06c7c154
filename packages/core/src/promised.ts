/**
 * A promise of what `run` gives, whether it gives a value, a promise, or throws (the throw becomes
 * the rejection): for callers that chain or race work which may answer at once.
 */
export function promised<T>(run: () => T | PromiseLike<T>): Promise<T> {
  try {
    return Promise.resolve(run());
  } catch (err) {
    return Promise.reject(err);
  }
}
