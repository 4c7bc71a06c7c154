# syntax=docker/dockerfile:1
# The mcpx notes example as a container: `mcpx serve` over Streamable HTTP on 0.0.0.0:3000/mcp.
# apps/example/test/container.test.ts runs this file's ENTRYPOINT with its ENV (no Docker needed):
# keep ENTRYPOINT/CMD as JSON arrays and each ENV as KEY=value on one line.

# --- build: every workspace compiled with the dev toolchain ----------------------------------
FROM node:24-slim AS build
WORKDIR /app
# Manifests first, so `npm ci` is cached until a dependency changes.
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/stdio/package.json packages/stdio/
COPY packages/http/package.json packages/http/
COPY packages/redis/package.json packages/redis/
COPY packages/otel/package.json packages/otel/
COPY packages/openapi/package.json packages/openapi/
COPY packages/proxy/package.json packages/proxy/
COPY packages/testing/package.json packages/testing/
COPY packages/cli/package.json packages/cli/
COPY packages/mcpx/package.json packages/mcpx/
COPY apps/example/package.json apps/example/
COPY apps/fixtures/package.json apps/fixtures/
COPY apps/conformance/package.json apps/conformance/
COPY apps/bench/package.json apps/bench/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# --- runtime: production dependencies (no dev, no optional) and compiled output only ---------
# Everything here stays root-owned: the non-root user that runs the server cannot change the code.
FROM node:24-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/stdio/package.json packages/stdio/
COPY packages/http/package.json packages/http/
COPY packages/redis/package.json packages/redis/
COPY packages/otel/package.json packages/otel/
COPY packages/openapi/package.json packages/openapi/
COPY packages/proxy/package.json packages/proxy/
COPY packages/testing/package.json packages/testing/
COPY packages/cli/package.json packages/cli/
COPY packages/mcpx/package.json packages/mcpx/
COPY apps/example/package.json apps/example/
COPY apps/fixtures/package.json apps/fixtures/
COPY apps/conformance/package.json apps/conformance/
COPY apps/bench/package.json apps/bench/
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/packages/core/dist packages/core/dist
COPY --from=build /app/packages/stdio/dist packages/stdio/dist
COPY --from=build /app/packages/http/dist packages/http/dist
COPY --from=build /app/packages/redis/dist packages/redis/dist
COPY --from=build /app/packages/otel/dist packages/otel/dist
COPY --from=build /app/packages/openapi/dist packages/openapi/dist
COPY --from=build /app/packages/proxy/dist packages/proxy/dist
COPY --from=build /app/packages/cli/dist packages/cli/dist
COPY --from=build /app/packages/cli/templates packages/cli/templates
COPY --from=build /app/packages/cli/templates-app packages/cli/templates-app
COPY --from=build /app/apps/example/dist apps/example/dist
COPY --from=build /app/apps/example/skills apps/example/skills
# The notes live on a volume the non-root user owns; the code stays root-owned and read-only to it.
RUN mkdir -p /data/notes && chown -R node:node /data
VOLUME ["/data"]

ENV MCPX_HOST=0.0.0.0
ENV MCPX_PORT=3000
ENV MCPX_PATH=/mcp
ENV MCPX_LOG_LEVEL=info
ENV MCPX_DATA_DIR=/data/notes
# Empty = the defaults (loopback Origins only; Host checked on loopback connections against
# localhost, 127.0.0.1, [::1]). Set them to your public origin(s) and host name(s), comma separated.
ENV MCPX_ALLOWED_ORIGINS=
ENV MCPX_ALLOWED_HOSTS=

USER node
EXPOSE 3000
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.MCPX_PORT || process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "packages/cli/dist/bin.js", "serve", "apps/example/dist/notes-server.js"]
CMD []
