/**
 * The modes of a debounced start, apart from the start itself (debounced-start.ts) so
 * that the CLI can check `--debounce-mode` without loading the engine.
 */
import type { DebounceMode } from '../store/records.js';

/** The modes, the default first. */
export const DEBOUNCE_MODES: readonly DebounceMode[] = ['trailing', 'leading'];
