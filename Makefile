# Gleaner build, run and test entry points.
# One target directory, one cargo invocation for all plugins; tests never rebuild.

SHELL := /bin/bash
CARGO ?= cargo
WASM_TARGET := wasm32-wasip2
# Every crate under plugins/ except the SDK is a plugin; test-* plugins are staged apart.
ALL_PLUGINS := $(filter-out sdk templates,$(notdir $(patsubst %/Cargo.toml,%,$(wildcard plugins/*/Cargo.toml))))
TEST_PLUGINS := $(filter test-%,$(ALL_PLUGINS))
PLUGINS := $(filter-out test-%,$(ALL_PLUGINS))
PLUGIN_OUT := target/plugins
TEST_PLUGIN_OUT := target/test-plugins
WASM_DIR := target/$(WASM_TARGET)/release

.PHONY: all run demo test lint fmt plugins plugin host wasm-target bench bench-peers eval clean new-plugin test-plugin template-check fuzz test-unit proxy-tools native-tools browser-tools

all: plugins host

## Installs the wasm32-wasip2 target when it is missing.
wasm-target:
	@rustup target list --installed | grep -qx '$(WASM_TARGET)' || rustup target add $(WASM_TARGET)

## Builds every plugin component in one cargo invocation, stages them with their manifests,
## then precompiles each staged component for the host's engine (the artifact goes beside
## it, so the server starts without compiling); that step needs the host binary.
plugins: wasm-target host
	$(CARGO) build --release --target $(WASM_TARGET) $(foreach p,$(PLUGINS) $(TEST_PLUGINS),-p plugin-$(p))
	@mkdir -p $(PLUGIN_OUT) $(TEST_PLUGIN_OUT)
	@# cargo names the artifact of crate plugin-<p> plugin_<p with _>.wasm; it is staged as <p>.wasm.
	@for p in $(PLUGINS); do \
		f=$$(echo $$p | tr - _); \
		cp plugins/$$p/manifest.toml $(PLUGIN_OUT)/$$p.toml; \
		cp $(WASM_DIR)/plugin_$$f.wasm $(PLUGIN_OUT)/$$p.wasm; \
	done
	@for p in $(TEST_PLUGINS); do \
		f=$$(echo $$p | tr - _); \
		cp plugins/$$p/manifest.toml $(TEST_PLUGIN_OUT)/$$p.toml; \
		cp $(WASM_DIR)/plugin_$$f.wasm $(TEST_PLUGIN_OUT)/$$p.wasm; \
	done
	./target/release/gleaner precompile $(PLUGIN_OUT)
	@echo "plugins staged and precompiled in $(PLUGIN_OUT) (test plugins in $(TEST_PLUGIN_OUT))"

# Test targets build the server as the tests do. The tests' dependencies turn
# on other features in crates wasmtime shares, so `cargo build` and `cargo
# test` would each compile wasmtime; building the binary through `cargo test
# --no-run` (which puts it at target/release/gleaner too) compiles it once.
ifneq ($(filter test test-% template-check,$(MAKECMDGOALS)),)
HOST_FOR_TESTS := 1
endif
export HOST_FOR_TESTS

## Builds the server (with the tests, for the test targets).
host: native-tools
ifeq ($(HOST_FOR_TESTS),1)
	$(CARGO) test --release --workspace --no-run
else
	$(CARGO) build --release -p gleaner
endif

## Builds everything and serves on 127.0.0.1:8080 (GLEANER_ADDR to change).
run: plugins host
	./target/release/gleaner

## Serves with recorded upstream traffic, so every endpoint answers without internet.
demo: plugins host
	./target/release/gleaner demo

## Builds one plugin (NAME=...), stages it in $(PLUGIN_OUT) and precompiles it:
## the quick loop while working on one plugin.
plugin: wasm-target host
	@test -n "$(NAME)" || { echo "usage: make plugin NAME=<plugin directory under plugins/>"; exit 2; }
	$(CARGO) build --release --target $(WASM_TARGET) -p plugin-$(NAME)
	@mkdir -p $(PLUGIN_OUT)
	cp plugins/$(NAME)/manifest.toml $(PLUGIN_OUT)/$(NAME).toml
	cp $(WASM_DIR)/plugin_$$(echo $(NAME) | tr - _).wasm $(PLUGIN_OUT)/$(NAME).wasm
	./target/release/gleaner precompile $(PLUGIN_OUT)

## Quality benchmarks: every processor on sets it was not tuned on, printed and
## written to target/eval/report.md (docs/quality.md keeps a copy). Third-party
## sets are read from GLEANER_EVAL_DATA; eval/README.md says how to place them.
## `make eval SETS="highlight enhance"` runs some of them.
eval: plugins host
	$(CARGO) run --release -p gleaner-eval -- $(SETS)

## Runs every test: unit tests of host and plugins, then the integration tests against the real server.
## Installs what the server's BoringSSL build needs when missing: CMake, and
## libclang for its bindings (the browser-fingerprint transport, wreq).
native-tools:
	@need=""; command -v cmake >/dev/null || need="$$need cmake"; \
	ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 || need="$$need libclang-dev clang"; \
	command -v g++ >/dev/null || need="$$need g++"; \
	if [ -n "$$need" ]; then \
		echo "installing$$need to build BoringSSL"; \
		$(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
		$(if $(filter 0,$(shell id -u)),,sudo) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need; \
	fi

## Installs Debian's squid, microsocks and openssl for the real-proxy tests when missing
## (best effort: without them those tests say "skipped: … not installed").
proxy-tools:
	@need=""; for t in squid microsocks openssl; do command -v $$t >/dev/null || [ -x /usr/sbin/$$t ] || need="$$need $$t"; done; \
	if [ -n "$$need" ]; then \
		echo "installing$$need for the real-proxy tests"; \
		{ $(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
		  $(if $(filter 0,$(shell id -u)),,sudo) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need; } \
		|| echo "could not install$$need: the real-proxy tests will say skipped"; \
	fi

## Installs Debian's chromium for the headless-browser tests when missing (best
## effort: without it those tests say "skipped: chromium not installed").
browser-tools:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || { \
		echo "installing Debian's chromium for the headless-browser tests"; \
		{ $(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
		  $(if $(filter 0,$(shell id -u)),,sudo) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
		|| echo "could not install chromium: the headless-browser tests will say skipped"; }

test: plugins proxy-tools browser-tools
	set -o pipefail; $(CARGO) test --release --workspace 2>&1 | tee target/test-output.log
	@awk '/^test result:/ {p+=$$4; f+=$$6} END {printf "%d passed, %d failed\n", p, f}' target/test-output.log

## Fuzzes the token decoder, manifest parser, HAR reader and text formatter
## (proptest on stable Rust; FUZZ_CASES per target, default 20000).
FUZZ_CASES ?= 20000
fuzz: native-tools
	GLEANER_FUZZ_CASES=$(FUZZ_CASES) $(CARGO) test --release --workspace --test tests -- security::fuzz::

## The fast path: unit tests of host and plugins only, no server.
test-unit: native-tools
	set -o pipefail; $(CARGO) test --release --workspace --lib --bins 2>&1 | tee target/test-unit-output.log
	@awk '/^test result:/ {p+=$$4; f+=$$6} END {printf "%d passed, %d failed\n", p, f}' target/test-unit-output.log

## Creates plugins/NAME from a template: make new-plugin NAME=my-source KIND=source|processor
new-plugin:
	@plugins/templates/new-plugin.sh "$(NAME)" "$(KIND)"

## Runs one plugin's replay cases (plugins/NAME/tests/replay.toml) against the real server.
test-plugin: plugins
	GLEANER_TEST_PLUGIN=$(NAME) $(CARGO) test --release --workspace --test tests -- plugin_replay --nocapture

## Proves a new plugin needs no host change: generates one of each kind, builds, serves and tests them, then removes them.
template-check:
	./plugins/templates/check.sh

## Formatting and lints for host and plugins.
lint: wasm-target native-tools
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	$(CARGO) clippy --release --target $(WASM_TARGET) $(foreach p,$(PLUGINS) $(TEST_PLUGINS),-p plugin-$(p)) -- -D warnings

fmt:
	$(CARGO) fmt --all

## Benchmarks, written to target/bench/report.md: plugin calls, the WASM tax
## against native builds, peers (after `make bench-peers`), memory, start-up,
## hot swap, throughput.
bench: plugins host
	$(CARGO) run --release -p gleaner-bench --

BENCH_VENV := target/bench/venv

## Installs the benchmarks' Python peers (pySBD, PRAW; pinned in
## tools/bench/src/peers/requirements.txt) into target/bench/venv, from PyPI.
bench-peers:
	python3 -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet -r tools/bench/src/peers/requirements.txt
	@echo "peers installed in $(BENCH_VENV); make bench now measures them"

## The API reference page in a real browser: headless Chromium (Debian's package,
## installed when missing) opens /docs on a real server and every served route
## must show; screenshots in target/docs/. Not part of `make test`.
.PHONY: test-browser test-contract
test-browser: plugins
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || { \
		echo "installing Debian's chromium for the browser test"; \
		$(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
		$(if $(filter 0,$(shell id -u)),,sudo) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }
	GLEANER_BROWSER_TEST=1 $(CARGO) test --release --workspace --test tests -- browser:: --nocapture

## The cluster tests: a real nats-server with JetStream (Debian's package,
## installed when missing) on a random loopback port, and two or three
## replicas; jobs, schedules, shared pacing, walls, sessions and roll-outs,
## and an outage. Not part of `make test`, which needs no service.
.PHONY: test-cluster
test-cluster: plugins
	@command -v nats-server >/dev/null || { \
		echo "installing Debian's nats-server for the cluster tests"; \
		$(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
		$(if $(filter 0,$(shell id -u)),,sudo) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server; }
	GLEANER_CLUSTER_TEST=1 $(CARGO) test --release --workspace --test tests -- cluster:: --nocapture --test-threads=1

## Contract test: schemathesis (pinned in scripts/contract/requirements.txt, installed
## into target/contract-venv) against the real server's /openapi.json, with replayed
## fixtures; CONTRACT_EXAMPLES per operation (default 100). Reports in target/contract/.
test-contract: plugins
	scripts/contract.sh

IMAGE ?= gleaner:latest

## Builds the container image $(IMAGE) without Docker: the Debian base assembled
## by mmdebstrap, the image by podman from the Dockerfile with this machine's
## build (deploy/image/build-local.sh). Installs podman, mmdebstrap and runc
## (Debian's) when missing.
.PHONY: image-local test-image
image-local: plugins
	@need=""; for p in podman mmdebstrap runc; do command -v $$p >/dev/null || need="$$need $$p"; done; \
	if [ -n "$$need" ]; then \
		echo "installing Debian's$$need for the image"; \
		$(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
		$(if $(filter 0,$(shell id -u)),,sudo) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need; \
	fi
	deploy/image/build-local.sh $(IMAGE)

## Builds the image with podman and runs it once (tests/image.rs): its health
## check, one request, SIGTERM. Not part of `make test`; CI runs it.
test-image: image-local
	GLEANER_IMAGE_TEST=1 IMAGE=$(IMAGE) $(CARGO) test --release --workspace --test tests -- image:: --nocapture

## Builds the container image $(IMAGE) from the Dockerfile (host, plugins and their
## precompiled artifacts on a small non-root runtime); needs a Docker daemon with BuildKit.
.PHONY: image
image:
	@command -v docker >/dev/null || { echo "make image: the docker command is not installed; install Docker Engine or Docker Desktop, then run make image again" >&2; exit 1; }
	@err=$$(timeout 20 docker info 2>&1 >/dev/null) || { echo "make image: no Docker daemon answers ($$err); start one (e.g. sudo systemctl start docker) or point DOCKER_HOST at one, then run make image again; or build with podman: make image-local" >&2; exit 1; }
	@docker buildx version >/dev/null 2>&1 || { echo "make image: the Dockerfile needs BuildKit, and the docker buildx plugin is missing; install it (Debian/Ubuntu: docker-buildx-plugin)" >&2; exit 1; }
	docker buildx build --load --tag $(IMAGE) .

clean:
	$(CARGO) clean
