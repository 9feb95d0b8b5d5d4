/** Placeholder until the sqlite backend lands; replaced by src/store/sqlite/. */
import { StoreError } from '../../core/errors.js';
import type { Store } from '../store.js';
import type { StoreOptions } from '../store-options.js';
import type { StoreUrl } from '../url.js';

/** Opens the sqlite store. */
export async function openSqliteStore(
  _url: Extract<StoreUrl, { dialect: 'sqlite' }>,
  _options: StoreOptions,
): Promise<Store> {
  throw new StoreError('the sqlite backend is not built yet');
}
