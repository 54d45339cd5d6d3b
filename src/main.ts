/**
 * Entry point: reads the configuration, builds the server and listens. The only file that touches the
 * process (environment, signals, exit codes).
 */
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { ConfigError, DEFAULT_SHUTDOWN_DELAY_MS, DEFAULT_SHUTDOWN_TIMEOUT_MS, loadConfig, type Config } from './config.js';
import { buildServer, closeGracefully } from './server.js';

/** The configuration and the server, or exit 2 with a message that names the variable. */
const configure = (): { config: Config; app: FastifyInstance } => {
  try {
    const config = loadConfig(process.env);
    return { config, app: buildServer(config) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`invalid configuration: ${error.message}`);
    process.exit(2);
  }
};

const start = async (): Promise<void> => {
  const { config, app } = configure();
  const delay = config.shutdownDelayMs ?? DEFAULT_SHUTDOWN_DELAY_MS;
  closeWithGrace({ delay: config.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS, logger: app.log }, async ({ signal, err }) => {
    if (err !== undefined) app.log.error({ err }, 'shutting down after an error');
    // NOTE: no drain delay after a crash: nothing should keep being served.
    await closeGracefully(app, err === undefined ? delay : 0);
    app.log.info({ signal }, 'shut down');
  });
  await app.listen({ port: config.port, host: config.host });
};

await start();
