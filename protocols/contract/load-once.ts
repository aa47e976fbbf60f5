/**
 * A loader that runs once: later calls share its promise (a failed load is tried again). For
 * tool layers that protocols import on first use: `import()` resolves the module again on every
 * call, which costs more than awaiting a settled promise on a hot path.
 */
export function loadOnce<Value>(load: () => Promise<Value>): () => Promise<Value> {
  let loading: Promise<Value> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
