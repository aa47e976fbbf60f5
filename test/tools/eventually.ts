/** Polls `check` until it holds or `timeoutMs` passes; returns its last answer. */
export async function eventually(check: () => boolean, timeoutMs = 5000): Promise<boolean> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 25))) {
    if (check()) return true;
  }
  return check();
}
