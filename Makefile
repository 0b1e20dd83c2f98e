# A3S Power — top-level entry points. See README.md.
#   make run    install deps, build, serve a model (MODEL=path|store name)
#   make test   install deps, build, run every test (CTest)
#   make build  build everything (Release) without tests running
#   make check  build, then run the unit tests only (the fast loop while working; no deps install)
#   make supply-chain  build the four profiles and write docs/supply-chain.md and docs/sbom/ (releases)
JOBS ?= $(shell nproc)
BUILD ?= build
MODEL ?= hf://ggml-org/models/tinyllamas/stories260K.gguf@sha256:270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d

.PHONY: deps build test check run clean supply-chain

deps:
	bash scripts/install-deps.sh

build: deps
	cmake --preset default
	cmake --build $(BUILD) -j $(JOBS)

test: build
	bash scripts/run-tests.sh

check:
	cmake --preset default
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) -L unit -j $(JOBS) --output-on-failure

run: build
	bash scripts/run-server.sh "$(MODEL)"

# The verifier is checked reproducible first (it builds build-verifier/), then every profile's shipped
# binaries are built where missing and reported on.
supply-chain: deps
	bash scripts/check-reproducible.sh
	python3 scripts/supply-chain.py --build --check

clean:
	rm -rf build build-*
