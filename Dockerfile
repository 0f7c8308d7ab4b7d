# One image for both services; docker-compose.yml picks the command.
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# The client package is a workspace of the root: npm needs its manifest to install.
COPY client/package.json ./client/
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.image.json ./
COPY shared ./shared
COPY gateway ./gateway
COPY pets-service ./pets-service
COPY scripts ./scripts
# The client package: the gateway's CLI and console share its Link header parser (only that file is compiled in).
COPY client ./client
# Only the services: bench/ and tools/ are not copied (test/image.test.ts builds from exactly these lines).
RUN npx tsc -p tsconfig.image.json && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The ops console's page, script and stylesheet are served as they are, from the source tree (no build step).
COPY --from=build /app/gateway/src/admin/assets ./gateway/src/admin/assets
# The developer portal's script and stylesheet are served as they are, from the source tree (no build step).
COPY --from=build /app/gateway/src/portal/assets ./gateway/src/portal/assets
USER node
EXPOSE 8080 8081 8082
CMD ["node", "dist/gateway/src/main.js"]
