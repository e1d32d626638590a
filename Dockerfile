# syntax=docker/dockerfile:1
# Build stage: full dependencies, compile TypeScript to dist/.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps apps
COPY libs libs
COPY tools tools
COPY bench bench
RUN npm run build && npm prune --omit=dev

# Runtime stage: production dependencies and compiled code only; runs as the unprivileged node user.
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY config config
COPY proto proto
USER node
EXPOSE 8080
# The same image runs the sandbox with: node dist/apps/sandbox/src/main.js
CMD ["node", "--enable-source-maps", "dist/apps/gateway/src/main.js"]
