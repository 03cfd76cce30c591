/** Items already in hand, as a stream (a cached answer's chunks, a JSON reply replayed as chunks). */
export async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

/** The stream, reporting when it ended (the upstream time of the metrics). */
export async function* timed<T>(items: AsyncIterable<T>, ended: () => void): AsyncGenerator<T> {
  yield* items;
  ended();
}
