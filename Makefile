# vault: developer and CI entry points. `make demo` shows the tool at work; `make test` runs the tests.
# Node 24 is bootstrapped into .tools/ from the npm registry when the node on PATH is older.

SHELL := /bin/bash
.DEFAULT_GOAL := help

NODE_MAJOR := $(shell node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
ifeq ($(shell test "$(NODE_MAJOR)" -ge 24 2>/dev/null && echo yes),yes)
TOOLCHAIN :=
else
TOOLCHAIN := .tools/node_modules/.bin/node
export PATH := $(CURDIR)/.tools/node_modules/.bin:$(PATH)
endif
NPM := npm --loglevel=error --no-fund --no-audit

.PHONY: help setup build manifest manifest-check schemas schemas-check lint typecheck test test-unit test-integration ci demo demo-engine pwgen bench clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 20

.tools/node_modules/.bin/node:
	@echo "node $(NODE_MAJOR) is older than 24: installing node@24 into .tools/" >&2
	@$(NPM) install --prefix .tools --no-save node@24 >/dev/null

node_modules/.package-lock.json: package-lock.json $(TOOLCHAIN)
	@$(NPM) ci
	@touch $@

setup: $(TOOLCHAIN) node_modules/.package-lock.json ## Node 24 toolchain and npm packages

dist/.built: $(shell find src -name '*.ts' 2>/dev/null) tsconfig.json tsconfig.build.json package.json scripts/bundle.mjs | setup
	@rm -rf dist/cli dist/commands dist/.tsbuildinfo
	@$(NPM) run build --silent
	@node scripts/bundle.mjs
	@npx --no-install oclif manifest >/dev/null
	@node scripts/sort-manifest.mjs
	@touch $@

build: setup dist/.built ## compile TypeScript to dist/, bundle the CLI and the proxy's serving process, regenerate oclif.manifest.json

manifest: build ## regenerate oclif.manifest.json (part of every build; commit the result)

manifest-check: build ## fail when the committed oclif.manifest.json differs from the built one
	@if [ -d .git ] && ! git diff --quiet -- oclif.manifest.json; then \
	  echo "oclif.manifest.json is stale: run 'make build' and commit it" >&2; git diff --stat -- oclif.manifest.json >&2; exit 1; fi

schemas: setup ## regenerate test/schemas/<id>.json, the --json shape of each command (commit the result)
	@npx --no-install tsx scripts/json-schemas.ts

schemas-check: setup ## fail when a committed --json schema differs from the command's result type
	@npx --no-install tsx scripts/json-schemas.ts --check

lint: setup ## eslint and prettier
	@npx --no-install eslint .
	@npx --no-install prettier --check --log-level warn .

typecheck: setup ## tsc --noEmit over src, test and bench
	@npx --no-install tsc -p tsconfig.json --noEmit

test: build ## run every test (unit, integration against a private engine and PostgreSQL)
	@npx --no-install vitest run

test-unit: build ## unit tests only
	@npx --no-install vitest run --project unit

test-integration: build ## integration tests only
	@npx --no-install vitest run --project integration --project measured

ci: manifest-check ## everything CI checks: the tests, with lint, typecheck and the schema check beside them
	@set -o pipefail; started=$$(date +%s); \
	 ( $(MAKE) --no-print-directory lint typecheck schemas-check > .ci-checks.log 2>&1; echo $$? > .ci-checks.rc ) & \
	 $(MAKE) --no-print-directory test; tests=$$?; wait; checks=$$(cat .ci-checks.rc); \
	 cat .ci-checks.log; rm -f .ci-checks.log .ci-checks.rc; \
	 echo "ci: tests exit $$tests, lint/typecheck/schemas exit $$checks, $$(( $$(date +%s) - started )) s"; \
	 test $$tests -eq 0 -a $$checks -eq 0

demo: build ## an embedded vault, the example stack rendered with its secrets, the proxy's decisions
	@bash scripts/demo.sh

demo-engine: build ## the socket proxy in front of a real engine (DOCKER_HOST or /var/run/docker.sock) and a consumer
	@bash scripts/demo-engine.sh

pwgen: build ## print a random 32-character password
	@./bin/run.js pwgen

bench: build ## run every benchmark under bench/
	@for b in bench/*.ts; do npx --no-install tsx "$$b" || exit 1; done

clean: ## remove build output and the bootstrapped toolchain
	rm -rf dist .tools node_modules
