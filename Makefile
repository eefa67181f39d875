# screentime — see README.md. `make run` and `make test` work on a fresh Debian 12 with Swift.
SWIFT       ?= swift
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR       = $(DESTDIR)$(PREFIX)/bin
SHAREDIR     = $(DESTDIR)$(PREFIX)/share/screentime
SHARED      ?= ../shared
# How long `make bench` watches the release daemon sampling /proc (minutes; 0 skips it).
BENCH_MINUTES ?= 10
DEBIAN_PKGS  = python3 sqlite3 libsqlite3-dev libsystemd-dev pkg-config libx11-dev libxss-dev libxres-dev libcrypt-dev
# What the tests run against for real: a D-Bus daemon with python3-dbusmock's logind, an X
# server (Xvfb) with openbox, xdotool and xterm, sway headless with foot, and mkpasswd (whois).
TEST_PKGS    = dbus-daemon dbus-bin python3-dbusmock xvfb xauth openbox xdotool xterm x11-utils sway foot whois

.PHONY: all build run demo test bench install uninstall deps test-deps clean

all: build

# Installs what the build (deps) or the tests (test-deps) need and is missing: apt-get as root,
# else a message naming the packages.
define install_missing
	@command -v $(SWIFT) >/dev/null || { echo "make: swift is not on PATH; install Swift 6 (https://www.swift.org/install/linux/)" >&2; exit 1; }
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	  else echo "make: missing Debian packages:$$missing (run: sudo apt-get install$$missing)" >&2; exit 1; fi; \
	fi
endef

deps:
	$(call install_missing,$(DEBIAN_PKGS))

test-deps:
	$(call install_missing,$(DEBIAN_PKGS) $(TEST_PKGS))

build: deps
	$(SWIFT) build

# The daemon in the foreground, for you, on the default policy, with its state and its control
# socket in ./state. Ctrl-C stops it (everything is saved). In another terminal:
#   .build/debug/stctl status --socket state/control.sock
run: build
	@mkdir -p state && chmod 700 state
	$(SWIFT) run screentimed --policy policies/default.toml --state-dir state --socket state/control.sock

# A bundled afternoon replayed through the engine: what it earns, costs and stops.
demo: build
	$(SWIFT) run screentimed replay --pretty --policy policies/default.toml policies/demo-day.jsonl

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test
	@if [ -x $(SHARED)/tools/check-scenario ]; then \
	  SCREENTIMED=.build/debug/screentimed $(SHARED)/tools/check-scenario $(SHARED)/scenarios/*/; \
	else echo "make: $(SHARED)/tools/check-scenario is not beside this clone; the same scenarios ran above from Tests/Scenarios/shared"; fi

bench: deps
	$(SWIFT) build -c release --product ReplayBenchmark
	$(SWIFT) build -c release --product screentimed
	$(SWIFT) build -c release --product stctl
	.build/release/ReplayBenchmark .build/release $(BENCH_MINUTES)

install: deps
	$(SWIFT) build -c release --product screentimed
	$(SWIFT) build -c release --product stctl
	$(SWIFT) build -c release --product screentime-hook-x11
	install -d $(BINDIR) $(SHAREDIR)/policies
	install -m 0755 .build/release/screentimed .build/release/stctl .build/release/screentime-hook-x11 $(BINDIR)/
	install -m 0644 policies/default.toml $(SHAREDIR)/policies/

uninstall:
	rm -f $(BINDIR)/screentimed $(BINDIR)/stctl $(BINDIR)/screentime-hook-x11
	rm -rf $(SHAREDIR)

clean:
	rm -rf .build
