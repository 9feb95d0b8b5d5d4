/**
 * The signal key a hook waits on: one signal name per job. The client delivers a signal
 * under it without loading the hook's kind (or the engine).
 */
export function signalKey(job: string, signal: string): string {
  return `${job}:${signal}`;
}
