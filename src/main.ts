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

/** The signals that ask for a graceful stop; close-with-grace handles the others. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * The same signal again within this time is the same request: Ctrl-C on `npm start` signals the terminal's
 * process group (npm and node) and npm forwards its copy to node. A second Ctrl-C after it means "now".
 */
const REPEAT_WINDOW_MS = 1_000;

/** SIGINT and SIGTERM: the first starts the drain, a repeat within the window is ignored, a later one exits 1 at once. */
const onStopSignals = (app: FastifyInstance, close: (signal: NodeJS.Signals) => void): void => {
  let first: number | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    const now = Date.now();
    if (first === undefined) {
      first = now;
      close(signal);
    } else if (now - first < REPEAT_WINDOW_MS) {
      app.log.info(
        { signal },
        `${signal} again within ${REPEAT_WINDOW_MS / 1000} s of the first: the same request, still draining (repeat it later to stop now)`,
      );
    } else {
      app.log.error(`second ${signal}, exiting`);
      process.exit(1);
    }
  };
  STOP_SIGNALS.forEach((signal) => process.on(signal, onSignal));
};

const start = async (): Promise<void> => {
  const { config, app } = configure();
  const delay = config.shutdownDelayMs ?? DEFAULT_SHUTDOWN_DELAY_MS;
  let stopSignal: NodeJS.Signals | undefined;
  const grace = closeWithGrace(
    { delay: config.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS, logger: app.log, skip: [...STOP_SIGNALS] },
    async ({ signal, err }) => {
      if (err !== undefined) app.log.error({ err }, 'shutting down after an error');
      // NOTE: no drain delay after a crash: nothing should keep being served.
      await closeGracefully(app, err === undefined ? delay : 0);
      app.log.info({ signal: signal ?? stopSignal }, 'shut down');
    },
  );
  onStopSignals(app, (signal) => {
    stopSignal = signal;
    grace.close();
  });
  await app.listen({ port: config.port, host: config.host });
};

await start();
