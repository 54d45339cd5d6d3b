/**
 * Entry point: reads the configuration, builds the server and listens. The only file that touches the
 * process (environment, signals, exit codes).
 */
import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig } from './config.js';
import { buildServer } from './server.js';

const start = async (): Promise<void> => {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`invalid configuration: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const app = buildServer(config);
  closeWithGrace({ delay: 10_000 }, async ({ err }) => {
    if (err !== undefined) app.log.error({ err }, 'shutting down after an error');
    await app.close();
  });
  await app.listen({ port: config.port, host: config.host });
};

await start();
