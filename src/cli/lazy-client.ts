/**
 * The client, loaded when a command first needs it. The engines it brings (and their
 * schemas) are most of what a `weft` process loads: `weft --help`, `weft validate` and
 * a refused flag start without them.
 */
import type { Client } from '../client/client.js';
import type { Store } from '../store/store.js';

/** A client of `store`, its module loaded on first use. */
export async function clientOf(store: Store): Promise<Client> {
  const { Client: ClientClass } = await import('../client/client.js');
  return new ClientClass(store);
}
