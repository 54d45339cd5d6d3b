# syntax=docker/dockerfile:1
# The hook server image:
#   docker build -t registry.example.com/ironic-metacontroller-hooks:0.1.0 .
# Node.js 26 (the current LTS), as package.json's engines require. Every stage uses the same base image, pinned by
# the digest of its multi-arch index so that a rebuild gets the same Node.js and Debian:
#   node:26-bookworm-slim, Node.js 26.6.0, pushed 2026-08-05 (docker-library/repo-info, repos/node/remote/26-bookworm-slim.md).
# To move on, take the tag's new digest (docker buildx imagetools inspect node:26-bookworm-slim) into all three FROM lines.

# 1. Compile TypeScript (dev dependencies only live here). --ignore-scripts: the only install script is
# that of the `node` dev dependency, which would download a second Node.js; the base image's node compiles.
FROM node:26-bookworm-slim@sha256:81502e860176e63695d769d3d1a2d3a403abc1c27c6a02169b765f3e43b60ede AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.runtime.json ./
COPY src ./src
# The hook server and the certificate issuer its pods run, with what they import and the Ironic's feature
# modules (the server loads their directory when it starts): not the CLI nor its emulator.
RUN npm run build:runtime

# 2. Production dependencies only: --omit=dev keeps typescript, tap and the `node` binary package (a dev
# dependency) out of the image. No production dependency has an install script.
FROM node:26-bookworm-slim@sha256:81502e860176e63695d769d3d1a2d3a403abc1c27c6a02169b765f3e43b60ede AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

# 3. Runtime: the base image's node, the production node_modules and dist/. package.json stays for
# "type": "module". npm, npx, corepack and yarn are removed: nothing runs them.
FROM node:26-bookworm-slim@sha256:81502e860176e63695d769d3d1a2d3a403abc1c27c6a02169b765f3e43b60ede
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
      /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-*
ENV NODE_ENV=production PORT=8080
WORKDIR /app
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The image's `node` user, numeric so that Kubernetes can check runAsNonRoot. The files stay root-owned
# and read-only for it; the server writes nothing (readOnlyRootFilesystem in deploy/).
USER 1000:1000
EXPOSE 8080
CMD ["node", "dist/main.js"]
