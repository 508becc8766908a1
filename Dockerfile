# syntax=docker/dockerfile:1.7
#
# Gleaner's container image: the server binary, every plugin component, and the
# plugins' precompiled artifacts. Build with `make image` (or `docker build -t
# gleaner .`); run with at least one API key, since the image listens on all
# interfaces and the server refuses to do that without keys:
#
#   docker run --rm -p 8080:8080 -e GLEANER_API_KEYS=change-me gleaner
#
# deploy/ has a Kubernetes example and a compose file.

# The toolchain of the workspace's rust-version (Cargo.toml) or newer; Debian
# bookworm, like the runtime stage, so the binary finds the same glibc.
ARG RUST_VERSION=1.95
# The runtime's base. deploy/image/build-local.sh, which builds with podman
# where no registry is reachable, passes one assembled by mmdebstrap.
ARG BASE=debian:bookworm-slim
# Where the server and plugins come from: `builder` compiles them here;
# `prebuilt` takes the ones a machine built already (build-local.sh).
ARG ARTIFACTS=builder

FROM rust:${RUST_VERSION}-bookworm AS builder
# CMake and libclang build BoringSSL, which browser requests go out with.
RUN apt-get update && apt-get install -y --no-install-recommends cmake clang libclang-dev \
    && rm -rf /var/lib/apt/lists/* && rustup target add wasm32-wasip2
WORKDIR /src
COPY . .
# `make plugins host` builds the server, every plugin component, stages them
# with their manifests in target/plugins, and precompiles each component with
# this very server binary (`gleaner precompile`): the artifacts are keyed by the
# engine, and the runtime stage runs the same binary, so it loads them instead
# of compiling. target/ is a build cache, so what the image needs is copied
# out of it in the same step.
RUN --mount=type=cache,target=/usr/local/cargo/registry,sharing=locked \
    --mount=type=cache,target=/usr/local/cargo/git,sharing=locked \
    --mount=type=cache,target=/src/target,sharing=locked \
    rm -rf target/plugins target/test-plugins \
    && make CARGO="cargo --locked" plugins host \
    && mkdir -p /out \
    && cp target/release/gleaner /out/gleaner \
    && cp -r target/plugins /out/plugins

# The server and plugins as `make plugins` staged them, from a build context
# that holds them (build-local.sh makes one): gleaner, plugins/.
FROM scratch AS prebuilt
COPY gleaner /out/gleaner
COPY plugins /out/plugins

FROM ${ARTIFACTS} AS artifacts

FROM ${BASE} AS runtime
# A system user of its own; it owns only the compile cache and the data
# directory. The binary and the plugins belong to root and cannot be changed by
# the server (see docs/security.md, "Compiled code"). No extra packages: TLS roots are
# built into the binary, the health check is a bash script, and libstdc++ (for
# BoringSSL) is in the base (bookworm-slim has it; build-local.sh includes it).
RUN groupadd --system --gid 10001 gleaner \
    && useradd --system --uid 10001 --gid gleaner --no-create-home \
       --home-dir /var/lib/gleaner --shell /usr/sbin/nologin gleaner \
    && install -d -o gleaner -g gleaner -m 0700 /var/lib/gleaner /var/cache/gleaner
COPY --from=artifacts /out/gleaner /usr/local/bin/gleaner
COPY --from=artifacts /out/plugins /opt/gleaner/plugins
COPY --chmod=0755 deploy/healthcheck.sh /usr/local/bin/gleaner-healthcheck

# The environment beats the config file (GLEANER_CONFIG), so these hold unless
# the container's own environment changes them. API keys are not set here:
# pass GLEANER_API_KEYS (comma separated) at run time; GLEANER_ADMIN_KEYS only
# where the admin API is wanted; GLEANER_TOKEN_SECRET (32 bytes or more) shared
# by every replica behind one load balancer.
ENV GLEANER_ADDR=0.0.0.0:8080 \
    GLEANER_PLUGIN_DIR=/opt/gleaner/plugins \
    GLEANER_CACHE_DIR=/var/cache/gleaner \
    GLEANER_DATA_DIR=/var/lib/gleaner \
    GLEANER_WATCH=false

USER 10001:10001
WORKDIR /var/lib/gleaner
EXPOSE 8080
# Healthy once /healthz answers 200 with status "ok": listening, and no plugin
# still compiling (that happens only when this machine's CPU differs from the
# build machine's, so the precompiled artifacts do not fit its engine).
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
    CMD ["/usr/local/bin/gleaner-healthcheck", "--ready"]
# The server itself is PID 1: it handles SIGTERM, drains requests in flight
# for drain_timeout_ms (30 s), then exits.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/gleaner"]
CMD ["serve"]

LABEL org.opencontainers.image.title="gleaner" \
      org.opencontainers.image.description="HTTP JSON service that collects reviews through sandboxed WebAssembly plugins" \
      org.opencontainers.image.licenses="Apache-2.0"
