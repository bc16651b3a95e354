/**
 * Poll `probe` until it gives a value (anything but `undefined` or `false`), within a bounded
 * deadline: tests wait for real processes this way instead of sleeping fixed times.
 */
export async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 15_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
