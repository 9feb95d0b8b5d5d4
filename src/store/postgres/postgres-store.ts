/** Placeholder until the postgres backend lands; replaced by src/store/postgres/. */
import { StoreError } from '../../core/errors.js';
import type { Store } from '../store.js';
import type { StoreOptions } from '../store-options.js';
import type { StoreUrl } from '../url.js';

/** Opens the postgres store. */
export async function openPostgresStore(
  _url: Extract<StoreUrl, { dialect: 'postgres' }>,
  _options: StoreOptions,
): Promise<Store> {
  throw new StoreError('the postgres backend is not built yet');
}
