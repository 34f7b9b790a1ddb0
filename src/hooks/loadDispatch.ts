import type * as Dispatch from './dispatch.js';

/**
 * The full gate, loaded only past the quick check. The build replaces this module so the bundle
 * carries the full gate as text compiled on first use: parsing it is most of a cold start.
 */
export async function loadDispatch(): Promise<typeof Dispatch> {
  return import('./dispatch.js');
}
