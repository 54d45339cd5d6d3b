/** The address of a listening server in tests. */
import type { AddressInfo } from 'node:net';

/** The TCP address a server listens on; throws when it is not listening on one (closed, or a pipe). */
export const tcpAddress = (server: { readonly address: () => string | AddressInfo | null }): AddressInfo => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error(`not listening on a TCP port: ${String(address)}`);
  return address;
};
