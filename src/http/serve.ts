import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LedgerhookError } from '../errors.js';

export interface ServeOptions {
  port: number;
  host?: string | undefined;
  /** Passed to node:http createServer (timeouts, keep-alive). */
  serverOptions?: ServerOptions | undefined;
  /** Sockets beyond this many are closed by Node as they arrive; default: unlimited. */
  maxConnections?: number | undefined;
  /** A stuck connection is cut this long after close() started; default 2000 ms. */
  closeGraceMs?: number | undefined;
}

export interface ServedHttp {
  server: Server;
  /** http://host:port, without a trailing slash (IPv6 hosts in brackets). */
  origin: string;
  port: number;
  /** Stops accepting, waits for `drain` (in-flight work), closes idle keep-alive sockets, then the rest. */
  close(drain?: () => Promise<unknown>): Promise<void>;
}

/** The listen error as neutral facts: the CLI's advice table turns `port_in_use` into flag advice. */
function listenError(error: NodeJS.ErrnoException, host: string, port: number): LedgerhookError {
  const where = `${host}:${port}`;
  if (error.code === 'EADDRINUSE')
    return new LedgerhookError('ERR_USAGE', `port ${port} is already in use on ${where}`, {
      cause: error,
      details: { reason: 'port_in_use', host, port },
    });
  return new LedgerhookError('ERR_USAGE', `cannot listen on ${where}: ${error.message}`, {
    cause: error,
    details: { reason: 'listen_failed', host, port, errno: error.code },
  });
}

/**
 * One place for the listen / port / URL / close code of every ledgerhook server (listen, mock):
 * binds, reports EADDRINUSE as a LedgerhookError, and closes without leaving keep-alive sockets.
 */
export async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options: ServeOptions,
): Promise<ServedHttp> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer(options.serverOptions ?? {}, handler);
  if (options.maxConnections !== undefined) server.maxConnections = options.maxConnections;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => reject(listenError(error, host, options.port));
    server.once('error', onError);
    server.listen(options.port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    server,
    origin: `http://${shownHost}:${address.port}`,
    port: address.port,
    close(drain) {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await drain?.();
        // Keep-alive sockets that went idle after their last answer; a stuck one is cut after the grace.
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? 2000);
        await closed;
        clearTimeout(force);
      })();
      return closing;
    },
  };
}
