# Gleaner build, run and test entry points.
# One target directory, one cargo invocation for all plugins; tests never rebuild.

CARGO ?= cargo
WASM_TARGET := wasm32-wasip2
PLUGINS := forum-site customer-feedback-hub review-chunk
TEST_PLUGINS := test-misbehave
PLUGIN_OUT := target/plugins
TEST_PLUGIN_OUT := target/test-plugins
WASM_DIR := target/$(WASM_TARGET)/release

.PHONY: all run demo test unit lint fmt plugins host wasm-target bench clean

all: plugins host

## Installs the wasm32-wasip2 target when it is missing.
wasm-target:
	@rustup target list --installed | grep -qx '$(WASM_TARGET)' || rustup target add $(WASM_TARGET)

## Builds every plugin component in one cargo invocation and stages them with their manifests.
plugins: wasm-target
	$(CARGO) build --release --target $(WASM_TARGET) $(foreach p,$(PLUGINS) $(TEST_PLUGINS),-p plugin-$(p))
	@mkdir -p $(PLUGIN_OUT) $(TEST_PLUGIN_OUT)
	@for p in $(PLUGINS); do \
		f=$$(echo $$p | tr - _); \
		cp plugins/$$p/manifest.toml $(PLUGIN_OUT)/$$p.toml; \
		cp $(WASM_DIR)/plugin_$$f.wasm $(PLUGIN_OUT)/$$f.wasm; \
	done
	@for p in $(TEST_PLUGINS); do \
		f=$$(echo $$p | tr - _); \
		cp plugins/$$p/manifest.toml $(TEST_PLUGIN_OUT)/$$p.toml; \
		cp $(WASM_DIR)/plugin_$$f.wasm $(TEST_PLUGIN_OUT)/$$f.wasm; \
	done
	@echo "plugins staged in $(PLUGIN_OUT) (test plugins in $(TEST_PLUGIN_OUT))"

## Builds the server.
host:
	$(CARGO) build --release -p gleaner

## Builds everything and serves on 127.0.0.1:8080 (GLEANER_ADDR to change).
run: plugins host
	./target/release/gleaner

## Serves with recorded upstream traffic, so every endpoint answers without internet.
demo: plugins host
	GLEANER_REPLAY=tests/fixtures/har ./target/release/gleaner

## Runs every test: unit tests of host and plugins, then the integration tests against the real server.
test: plugins
	$(CARGO) test --release --workspace

## Formatting and lints for host and plugins.
lint: wasm-target
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	$(CARGO) clippy --release --target $(WASM_TARGET) $(foreach p,$(PLUGINS) $(TEST_PLUGINS),-p plugin-$(p)) -- -D warnings

fmt:
	$(CARGO) fmt --all

## Benchmarks: instantiate+call time, requests/s, start-up time.
bench: plugins host
	$(CARGO) run --release -p gleaner --example bench

clean:
	$(CARGO) clean
