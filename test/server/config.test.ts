import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';
import { thrownBy } from './support.js';
import { valueAt } from '../support/paths.js';

t.test('defaults', async (t) => {
  const config = loadConfig({});
  t.match(config, {
    port: 8080,
    host: '0.0.0.0',
    bodyLimit: 8 * 1024 * 1024,
    logLevel: 'info',
    requestTimeoutMs: 8_000,
    reloadIntervalMs: 10_000,
    shutdownDelayMs: 3_000,
    shutdownTimeoutMs: 20_000,
    render: { serviceMonitors: false, mariadbOperator: false, clusterDomain: '', images: { mariadb: 'docker.io/library/mariadb:11.8' }, ipxeRelease: 'v2.0.0' },
  });
  t.notOk('tls' in config);
  t.notOk('auth' in config);
  t.notOk('hookImage' in config.render);
});

t.test('a whole request must arrive before Metacontroller gives up on it (10 s by default)', async (t) => {
  const config = loadConfig({});
  t.ok((config.requestTimeoutMs ?? Infinity) < 10_000, 'the request timeout is below the webhook timeout');
  t.match(loadConfig({ REQUEST_TIMEOUT_SECONDS: '5' }), { requestTimeoutMs: 5000 });
  t.match(
    valueAt(
      thrownBy(() => loadConfig({ REQUEST_TIMEOUT_SECONDS: '0' })),
      'message',
    ),
    /^REQUEST_TIMEOUT_SECONDS must be an integer between 1 and 3600/,
  );
});

t.test('TLS, auth, shutdown and render settings', async (t) => {
  t.same(loadConfig({ TLS_CERT_FILE: '/tls/tls.crt', TLS_KEY_FILE: '/tls/tls.key' }).tls, { certFile: '/tls/tls.crt', keyFile: '/tls/tls.key' });
  t.same(
    loadConfig({ AUTH_BEARER_TOKEN_FILE: '/auth/token' }).auth,
    { kind: 'bearer', tokenFile: '/auth/token', rotationGraceMs: 900_000 },
    'the previous token is accepted for 15 minutes',
  );
  t.same(loadConfig({ AUTH_BASIC_USERNAME: 'mc', AUTH_BASIC_PASSWORD_FILE: '/auth/password' }).auth, {
    kind: 'basic',
    username: 'mc',
    passwordFile: '/auth/password',
    rotationGraceMs: 900_000,
  });
  t.match(loadConfig({ AUTH_BEARER_TOKEN_FILE: '/auth/token', AUTH_ROTATION_GRACE_SECONDS: '0' }).auth, { rotationGraceMs: 0 }, 'no grace window');
  t.match(loadConfig({ AUTH_BASIC_USERNAME: 'mc', AUTH_BASIC_PASSWORD_FILE: '/p', AUTH_ROTATION_GRACE_SECONDS: '3600' }).auth, { rotationGraceMs: 3_600_000 });
  t.match(loadConfig({ RELOAD_INTERVAL_SECONDS: '2', SHUTDOWN_DELAY_SECONDS: '0', SHUTDOWN_TIMEOUT_SECONDS: '5' }), {
    reloadIntervalMs: 2000,
    shutdownDelayMs: 0,
    shutdownTimeoutMs: 5000,
  });
  t.match(loadConfig({ SERVICE_MONITORS: 'true', HOOK_IMAGE: 'registry.example/hooks:1.0' }).render, {
    serviceMonitors: true,
    hookImage: 'registry.example/hooks:1.0',
  });
  t.match(loadConfig({ MARIADB_OPERATOR: 'true', MARIADB_IMAGE: 'registry.example/mariadb:11.8' }).render, {
    mariadbOperator: true,
    images: { mariadb: 'registry.example/mariadb:11.8' },
  });
  t.match(loadConfig({ TLS_CERT_FILE: '', TLS_KEY_FILE: '', AUTH_BEARER_TOKEN_FILE: '' }), { tls: undefined, auth: undefined }, 'empty means unset');
  t.equal(loadConfig({ IPXE_RELEASE: 'v2.0.1' }).render.ipxeRelease, 'v2.0.1', 'the iPXE release of tls.ipxe firmware');
  t.equal(loadConfig({ IPXE_RELEASE: '' }).render.ipxeRelease, 'v2.0.0', 'empty means the pinned default');
  t.same(
    loadConfig({ KEEPALIVED_IMAGE: 'registry.example/keepalived:2', SIDECAR_IMAGE: 'registry.example/sidecar:1', IPXE_BUILDER_IMAGE: '', image: 'x' }).render
      .images.settings,
    { KEEPALIVED_IMAGE: 'registry.example/keepalived:2', SIDECAR_IMAGE: 'registry.example/sidecar:1' },
    'every non-empty *_IMAGE variable, for the image a feature declares (an empty one leaves its default)',
  );
});

t.test('an invalid value is a ConfigError that names the variable', async (t) => {
  const cases: [NodeJS.ProcessEnv, RegExp][] = [
    [{ PORT: '0' }, /^PORT must be an integer between 1 and 65535, got "0"/],
    [{ BODY_LIMIT_BYTES: '1mb' }, /^BODY_LIMIT_BYTES must be an integer/],
    [{ LOG_LEVEL: 'verbose' }, /^LOG_LEVEL must be one of/],
    [{ TLS_CERT_FILE: '/tls/tls.crt' }, /^TLS_CERT_FILE and TLS_KEY_FILE must be set together \(only TLS_CERT_FILE is set\)/],
    [{ TLS_KEY_FILE: '/tls/tls.key' }, /only TLS_KEY_FILE is set/],
    [{ AUTH_BASIC_USERNAME: 'mc' }, /^AUTH_BASIC_USERNAME and AUTH_BASIC_PASSWORD_FILE must be set together/],
    [{ AUTH_BASIC_USERNAME: 'm:c', AUTH_BASIC_PASSWORD_FILE: '/p' }, /^AUTH_BASIC_USERNAME must not contain ":"/],
    [
      { AUTH_BEARER_TOKEN_FILE: '/t', AUTH_BASIC_USERNAME: 'mc', AUTH_BASIC_PASSWORD_FILE: '/p' },
      /^AUTH_BEARER_TOKEN_FILE and AUTH_BASIC_USERNAME\/AUTH_BASIC_PASSWORD_FILE cannot be combined/,
    ],
    [{ AUTH_BEARER_TOKEN_FILE: '/t', AUTH_ROTATION_GRACE_SECONDS: '-1' }, /^AUTH_ROTATION_GRACE_SECONDS must be an integer between 0 and 86400, got "-1"/],
    [{ AUTH_BEARER_TOKEN_FILE: '/t', AUTH_ROTATION_GRACE_SECONDS: '15m' }, /^AUTH_ROTATION_GRACE_SECONDS must be an integer/],
    [{ RELOAD_INTERVAL_SECONDS: '0' }, /^RELOAD_INTERVAL_SECONDS must be/],
    [{ SHUTDOWN_DELAY_SECONDS: '-1' }, /^SHUTDOWN_DELAY_SECONDS must be/],
    [{ SHUTDOWN_DELAY_SECONDS: '30', SHUTDOWN_TIMEOUT_SECONDS: '20' }, /^SHUTDOWN_TIMEOUT_SECONDS \(20\) must be longer than SHUTDOWN_DELAY_SECONDS \(30\)/],
    [{ SERVICE_MONITORS: 'yes' }, /^SERVICE_MONITORS must be "true" or "false"/],
    [{ MARIADB_OPERATOR: '1' }, /^MARIADB_OPERATOR must be "true" or "false"/],
    [{ IPXE_RELEASE: '--upload-pack=x' }, /^IPXE_RELEASE must be a tag of https:\/\/github.com\/ipxe\/ipxe such as v2.0.0, got "--upload-pack=x"/],
    [{ IPXE_RELEASE: 'v2.0.0 x' }, /^IPXE_RELEASE must be a tag/],
    [{ IPXE_RELEASE: 'a/../b' }, /^IPXE_RELEASE must be a tag/],
  ];
  for (const [env, message] of cases) {
    const error = thrownBy(() => loadConfig(env));
    t.ok(error instanceof ConfigError, `a ConfigError: ${JSON.stringify(env)}`);
    t.match(error, { message }, JSON.stringify(env));
  }
});
