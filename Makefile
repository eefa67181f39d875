# screentime — see README.md. `make run` and `make test` work on a fresh Debian 12 with Swift.
SWIFT       ?= swift
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR       = $(DESTDIR)$(PREFIX)/bin
SHAREDIR     = $(DESTDIR)$(PREFIX)/share/screentime
LOCALEDIR    = $(DESTDIR)$(PREFIX)/share/locale
SHARED      ?= ../shared
# How long `make bench` watches the release daemon sampling /proc (minutes; 0 skips it).
BENCH_MINUTES ?= 10
# How long `make bench` watches screentimed --system and Timekpr-nExT side by side (0 skips it).
SYSTEM_BENCH_MINUTES ?= 5
# The household benchmark: a school lab's computers sharing one PostgreSQL, for this many seconds.
HOUSEHOLD_MACHINES ?= 200
HOUSEHOLD_SECONDS ?= 60
# The peer `make bench` measures against, run privately (not as a service), and what it runs on.
BENCH_PKGS   = dbus-daemon python3-dbusmock timekpr-next hyperfine wrk whois postgresql
DEBIAN_PKGS  = python3 openssl tzdata publicsuffix sqlite3 libsqlite3-dev libsystemd-dev pkg-config libx11-dev libxss-dev libxres-dev libxi-dev libcrypt-dev gettext
# What the tests run against for real: a D-Bus daemon with python3-dbusmock's logind, an X
# server (Xvfb) with openbox, xdotool and xterm (and Xephyr, a server whose mouse is a device of
# its own, not XTEST's), sway headless with foot (and swayidle, swaylock and grim, to see it
# lock when logind asks), mkpasswd (whois),
# systemd-analyze (systemd) to verify the unit files, libfaketime (faketime) to set the
# daemon's wall clock ahead while it runs, GNOME Shell headless (gnome-shell; gjs to load the
# extension's 45+ form, which Debian 12's shell cannot; gdbus and gsettings
# from libglib2.0-bin, dconf-cli for the system-mode locks, pkill from procps; locales, whose
# definitions make the machine's German, Spanish and French locales, TEST_LOCALES, for the
# extension's language tests) and KWin headless
# (kwin-wayland, with Xwayland for its X11 test windows), strace, to see that a parent's
# answer is synced to disk before it is sent, gcc, to build the power-cut shim
# (Tests/EndToEndTests/Scripts/powercut-vfs.c, against libsqlite3-dev), and what builds and checks
# the Debian package in a Debian 12 without Swift (debootstrap, lintian, dpkg-dev, binutils), and a
# real browser for the parents' page and the websites (chromium, chromium-driver, python3-selenium;
# chromium-l10n: Chromium in the child's language, which the extension's page follows; python3-pip fetches axe-core
# for its accessibility check, tools/fetch-axe; openssl makes its
# test certificate), Firefox ESR for the websites (firefox-esr: without its recommended video
# drivers, as everything here, which once kept headless GNOME Shell from starting), and PostgreSQL for the family ledger (postgresql: the tests run clusters of
# their own, never the system's). After the tests,
# tools/check-leftovers fails the run when a test user's process is still running.
TEST_PKGS    = dbus-daemon dbus-bin python3-dbusmock xvfb xserver-xephyr xauth openbox xdotool xterm x11-utils sway foot swayidle swaylock grim whois systemd faketime \
               gnome-shell gjs libglib2.0-bin dconf-cli procps locales kwin-wayland xwayland \
               strace gcc debootstrap lintian dpkg-dev binutils chromium chromium-l10n chromium-driver firefox-esr python3-selenium python3-pip openssl postgresql iproute2

.PHONY: all build release-build run demo test fuzz fuzz-build sanitize sanitize-build sanitize-run bench install install-gnome-lock uninstall deb deps test-deps clean

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

# GNOME Shell translates through glibc (GJS's gettext), and glibc only in a locale the machine
# has: these are added to its locale archive when missing (a fresh Debian has only C.UTF-8), as a
# family's machine has its own language's. (Into the archive, not a private LOCPATH: system mode
# rightly does not believe a GNOME Shell started with LOCPATH.)
TEST_LOCALES = de_DE es_ES fr_FR

test-deps:
	$(call install_missing,$(DEBIAN_PKGS) $(TEST_PKGS))
	tools/fetch-axe
	@for l in $(TEST_LOCALES); do \
	  locale -a 2>/dev/null | grep -qx "$$l.utf8" && continue; \
	  if [ "$$(id -u)" = 0 ]; then localedef -i $$l -c -f UTF-8 -A /usr/share/locale/locale.alias $$l.UTF-8 || exit 1; \
	  else echo "make: the locale $$l.UTF-8 is missing (run: sudo localedef -i $$l -c -f UTF-8 $$l.UTF-8)" >&2; exit 1; fi; \
	done

build: deps
	$(SWIFT) build
	tools/messages compile .build/debug/locale

# The daemon in the foreground, for you, on the default policy, with its state and its control
# socket in ./state. Ctrl-C stops it (everything is saved). In another terminal:
#   .build/debug/stctl status --socket state/control.sock
run: build
	@mkdir -p state && chmod 700 state
	$(SWIFT) run screentimed --policy policies/default.toml --state-dir state --socket state/control.sock

# A bundled afternoon replayed through the engine: what it earns, costs and stops.
demo: build
	$(SWIFT) run screentimed replay --pretty --policy policies/default.toml policies/demo-day.jsonl

# The release build (for check-install and check-deb), the thread sanitizer's and the fuzzer's
# are made beside the Swift tests, each in a folder of its own, at the lowest CPU priority
# (tools/build-beside): the end-to-end tests mostly wait on real daemons. tools/timed says how long
# each step took.
# These two tests silence the kernel's process events for the whole machine while they run (as a
# child can): every daemon of another test then samples every 5 s until it notices, and its timing
# bounds fail. They run after the others, alone; every test runs once.
SILENCING_TESTS = ProcSamplerTests.kernelEvents(Silenced|Unanswered)

test: test-deps
	tools/timed "the debug build" $(SWIFT) build --build-tests
	tools/messages compile .build/debug/locale
	tools/build-beside start $(MAKE) --no-print-directory release-build sanitize-build fuzz-build SANITIZER=thread
	tools/timed "the Swift tests" env SWIFT=$(SWIFT) tools/swift-test --skip '$(SILENCING_TESTS)' || { tools/build-beside stop; exit 1; }
	tools/timed "the tests that silence the kernel's process events, alone" env SWIFT=$(SWIFT) LOG=.build/swift-test-alone.log \
	  tools/swift-test --skip-build --filter '$(SILENCING_TESTS)' || { tools/build-beside stop; exit 1; }
	tools/timed "the rest of the release, sanitizer's and fuzzer's builds" tools/build-beside wait
	tools/timed "check-install" tools/check-install
	tools/timed "check-deb" tools/check-deb
	@if [ -x $(SHARED)/tools/check-scenario ]; then \
	  SCREENTIMED=.build/debug/screentimed $(SHARED)/tools/check-scenario $(SHARED)/scenarios/*/ $(SHARED)/family-scenarios/*/ \
	    $$(ls -d $(SHARED)/screen-scenarios/*/ 2>/dev/null); \
	else echo "make: $(SHARED)/tools/check-scenario is not beside this clone; the same scenarios ran above from Tests/Scenarios/shared, family and screen"; fi
	tools/timed "the suites under the thread sanitizer" $(MAKE) --no-print-directory sanitize-run SANITIZER=thread
	tools/timed "the fuzz targets' short pass" tools/fuzz 12

# Every suite but the end-to-end ones (which run the plain binaries) under a sanitizer, in a
# build of its own: SANITIZER=thread (data races; `make test` runs it) or address (memory errors
# and leaks; tools/lsan.supp names the libraries' leaks it does not count).
SANITIZER ?= thread
sanitize: test-deps sanitize-build
	$(MAKE) --no-print-directory sanitize-run

# SCREENTIME_UNIT_TESTS_ONLY: Package.swift leaves out what this build never runs (the programs and
# the end-to-end tests).
sanitize-build:
	SCREENTIME_UNIT_TESTS_ONLY=1 $(SWIFT) build --build-tests --build-path .build-$(SANITIZER) --sanitize=$(SANITIZER)

sanitize-run:
	SCREENTIME_UNIT_TESTS_ONLY=1 CALENDAR_SEEDS=$${CALENDAR_SEEDS:-12} LSAN_OPTIONS=suppressions=$(CURDIR)/tools/lsan.supp:print_suppressions=0 SWIFT=$(SWIFT) LOG=.build-$(SANITIZER)/swift-test.log \
	  tools/swift-test --skip-build --build-path .build-$(SANITIZER) --sanitize=$(SANITIZER) --skip EndToEndTests

# Coverage-guided fuzzing (docs/fuzzing.md): each target FUZZ_SECONDS under libFuzzer, from its
# corpus in Fuzz/; what reaches new code joins the corpus (commit it). `make test` runs a short pass.
# swift-driver drops -sanitize=fuzzer from a whole-module build's compile: the coverage is asked for
# by name, else libFuzzer would mutate blind.
FUZZ_SECONDS ?= 600
FUZZ_FLAGS   = -c release --build-path .build-fuzz --sanitize=fuzzer --sanitize=address -Xswiftc -DFUZZING \
               -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp
fuzz-build: deps
	$(SWIFT) build $(FUZZ_FLAGS) --product screentime-fuzz

fuzz: fuzz-build
	tools/fuzz --keep $(FUZZ_SECONDS)

# Installing timekpr-next enables its service; the benchmark runs its daemon itself, on a private
# bus, so the service is disabled again (it would limit this machine's users).
bench: deps
	$(call install_missing,$(BENCH_PKGS))
	@if [ "$$(id -u)" = 0 ] && command -v systemctl >/dev/null && systemctl is-enabled timekpr >/dev/null 2>&1; then \
	  systemctl disable --now timekpr >/dev/null 2>&1 || true; fi
	$(fresh_release_folder)
	$(SWIFT) build $(RELEASE) --product ReplayBenchmark
	$(SWIFT) build $(RELEASE) --product screentimed
	$(SWIFT) build $(RELEASE) --product stctl
	$(SWIFT) build $(RELEASE) --product screentime-web
	$(RELEASE_BIN)/ReplayBenchmark $(RELEASE_BIN) $(BENCH_MINUTES) $(SYSTEM_BENCH_MINUTES)
	$(SWIFT) build $(RELEASE) --product HouseholdBenchmark
	$(RELEASE_BIN)/HouseholdBenchmark $(HOUSEHOLD_MACHINES) $(HOUSEHOLD_SECONDS)

MANDIR       = $(DESTDIR)$(PREFIX)/share/man/man1
BASHCOMPDIR  = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR   = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHCOMPDIR  = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
# User units: $(PREFIX)/lib/systemd/user is on systemd's user unit path for /usr and /usr/local.
USERUNITDIR  = $(DESTDIR)$(PREFIX)/lib/systemd/user
UNITS        = screentimed screentime-hook-x11 screentime-hook-sway screentime-hook-kde
# The system units (system mode, docs/system-mode.md; the parents' page, docs/web.md): $(PREFIX)/lib/systemd/system.
SYSTEMUNITDIR = $(DESTDIR)$(PREFIX)/lib/systemd/system
SYSTEMUNITS  = screentimed-system screentime-web
# Yama's ptrace_scope at 1 (sysctl/50-screentime.conf): system mode believes the child's GNOME
# Shell only so (docs/security.md). systemd-sysctl reads $(PREFIX)/lib/sysctl.d for /usr and /usr/local.
SYSCTLDIR    = $(DESTDIR)$(PREFIX)/lib/sysctl.d
MANUALS      = .build/plugins/GenerateManual/outputs
# The GNOME Shell extension, for the GNOME Shell installed here (43 when there is none: Debian 12's);
# GNOME_SHELL=45 (or later) makes the ES-module form. GNOME finds it in $(PREFIX)/share.
GNOME_SHELL ?= $(or $(shell gnome-shell --version 2>/dev/null | sed -n 's/^GNOME Shell \([0-9]*\).*/\1/p'),43)
EXTENSIONDIR = $(DESTDIR)$(PREFIX)/share/gnome-shell/extensions
# System mode on GNOME: the extension on for every user and locked (docs/system-mode.md).
DCONFDIR    ?= $(DESTDIR)/etc/dconf

# What is installed and packaged: optimized, with the Swift runtime and Foundation linked in, so
# the programs need only Debian's shared libraries (libc, libsqlite3, libsystemd, libcrypt,
# libstdc++, and the X11 libraries for the X11 hook), not a Swift toolchain; and no run path
# (RUNPATH) into the toolchain's folder or the build folder. The manual pages come from the debug
# build: the plugin builds every product, and in release it would build them over these, dynamic.
# Each Swift function in a section of its own, so that the link can put the daemon's steady-state
# functions side by side (tools/screentimed.order, from tools/order-hot-code; docs/benchmarks.md).
# In a build folder of its own (RELEASE_PATH), so that `make test` can build it while the debug
# tests run (SwiftPM holds a build folder's lock for a whole `swift test`).
RELEASE_PATH = .build-release
RELEASE_BIN  = $(RELEASE_PATH)/release
RELEASE      = -c release --build-path $(RELEASE_PATH) --static-swift-stdlib --disable-local-rpath -Xswiftc -no-toolchain-stdlib-rpath \
               -Xswiftc -Xfrontend -Xswiftc -function-sections
# SwiftPM does not compile again what it compiled when only -Xswiftc flags change: a release
# folder built with other flags than these is removed first.
define fresh_release_folder
	@if [ "$$(cat $(RELEASE_PATH)/release.flags 2>/dev/null)" != "$(RELEASE)" ]; then \
	  rm -rf $(RELEASE_PATH)/*-unknown-linux-gnu/release; mkdir -p $(RELEASE_PATH); echo "$(RELEASE)" > $(RELEASE_PATH)/release.flags; fi
endef

# The programs `make install` puts in place, built with $(RELEASE).
release-build: deps
	$(fresh_release_folder)
	$(SWIFT) build $(RELEASE) --product screentimed
	$(SWIFT) build $(RELEASE) --product stctl
	$(SWIFT) build $(RELEASE) --product screentime-hook-x11
	$(SWIFT) build $(RELEASE) --product screentime-web
	$(SWIFT) build $(RELEASE) --product screentime-household
	$(SWIFT) build $(RELEASE) --product screentime-browser-host

# The binaries, the default policy, a man page per command (stctl-redeem.1, …) and shell
# completions for bash, zsh and fish, all generated by swift-argument-parser.
install: release-build
	$(SWIFT) package generate-manual --multi-page --configuration debug
	install -d $(BINDIR) $(SHAREDIR)/policies $(MANDIR) $(BASHCOMPDIR) $(ZSHCOMPDIR) $(FISHCOMPDIR) $(USERUNITDIR) $(SYSTEMUNITDIR)
	for u in $(UNITS); do sed 's|@BINDIR@|$(PREFIX)/bin|g' systemd/$$u.service.in > $(USERUNITDIR)/$$u.service; \
	  chmod 0644 $(USERUNITDIR)/$$u.service; done
	for u in $(SYSTEMUNITS); do sed 's|@BINDIR@|$(PREFIX)/bin|g' systemd/$$u.service.in > $(SYSTEMUNITDIR)/$$u.service; \
	  chmod 0644 $(SYSTEMUNITDIR)/$$u.service; done
	install -m 0755 $(RELEASE_BIN)/screentimed $(RELEASE_BIN)/stctl $(RELEASE_BIN)/screentime-hook-x11 $(RELEASE_BIN)/screentime-web \
	  $(RELEASE_BIN)/screentime-household $(RELEASE_BIN)/screentime-browser-host $(BINDIR)/
	ln -sf screentimed $(BINDIR)/screentime-setup
	tools/pack-browser-extension $(SHAREDIR)/browser $(PREFIX) >/dev/null
	tools/messages compile $(LOCALEDIR)
	install -m 0644 policies/default.toml $(SHAREDIR)/policies/
	install -d $(SYSCTLDIR)
	install -m 0644 sysctl/50-screentime.conf $(SYSCTLDIR)/
	tools/pack-gnome-extension $(GNOME_SHELL) $(EXTENSIONDIR)
	install -d $(SHAREDIR)/kwin/screentime/contents/code
	install -m 0644 desktop/kwin/screentime/metadata.json $(SHAREDIR)/kwin/screentime/
	install -m 0644 desktop/kwin/screentime/contents/code/main.js $(SHAREDIR)/kwin/screentime/contents/code/
	for f in $(MANUALS)/screentimed/*.1 $(MANUALS)/stctl/*.1 $(MANUALS)/screentime-web/*.1 $(MANUALS)/screentime-household/*.1; do \
	  b=$$(basename $$f .1); tools/man-names < $$f > $(MANDIR)/$$(echo $$b | tr . -).1; chmod 0644 $(MANDIR)/$$(echo $$b | tr . -).1; done
	for p in screentimed stctl screentime-web screentime-household; do \
	  $(RELEASE_BIN)/$$p --generate-completion-script bash > $(BASHCOMPDIR)/$$p; \
	  $(RELEASE_BIN)/$$p --generate-completion-script zsh > $(ZSHCOMPDIR)/_$$p; \
	  $(RELEASE_BIN)/$$p --generate-completion-script fish > $(FISHCOMPDIR)/$$p.fish; \
	done

uninstall:
	rm -f $(BINDIR)/screentimed $(BINDIR)/stctl $(BINDIR)/screentime-hook-x11 $(BINDIR)/screentime-web $(BINDIR)/screentime-household \
	  $(BINDIR)/screentime-browser-host $(BINDIR)/screentime-setup
	for f in screentime.crx screentime.xpi updates.xml chromium-policy.json chromium-host.json firefox-policies.json mozilla-host.json; do \
	  rm -f $(SHAREDIR)/browser/$$f; done
	rm -f $(MANDIR)/screentimed.1 $(MANDIR)/screentimed-*.1 $(MANDIR)/stctl.1 $(MANDIR)/stctl-*.1 $(MANDIR)/screentime-web.1 $(MANDIR)/screentime-web-*.1 \
	  $(MANDIR)/screentime-household.1 $(MANDIR)/screentime-household-*.1
	for p in screentimed stctl screentime-web screentime-household; do rm -f $(BASHCOMPDIR)/$$p $(ZSHCOMPDIR)/_$$p $(FISHCOMPDIR)/$$p.fish; done
	for u in $(UNITS); do rm -f $(USERUNITDIR)/$$u.service; done
	for u in $(SYSTEMUNITS); do rm -f $(SYSTEMUNITDIR)/$$u.service; done
	rm -f $(SYSCTLDIR)/50-screentime.conf
	for l in $$(sed 's/#.*//' po/LINGUAS); do rm -f $(LOCALEDIR)/$$l/LC_MESSAGES/screentime.mo; done
	rm -rf $(SHAREDIR) $(EXTENSIONDIR)/screentime@screentime

# System mode on GNOME: the extension enabled for every user, and what could turn it off (or run
# other code in GNOME Shell) locked, in dconf's `local` system database; the profile that reads
# it is written only when there is none (else add `system-db:local` to yours).
install-gnome-lock:
	install -d $(DCONFDIR)/db/local.d/locks $(DCONFDIR)/profile
	install -m 0644 desktop/gnome-shell/dconf/50-screentime $(DCONFDIR)/db/local.d/50-screentime
	install -m 0644 desktop/gnome-shell/dconf/locks/50-screentime $(DCONFDIR)/db/local.d/locks/50-screentime
	@if [ -e $(DCONFDIR)/profile/user ]; then \
	  grep -qx 'system-db:local' $(DCONFDIR)/profile/user || echo "make: add the line system-db:local to $(DCONFDIR)/profile/user" >&2; \
	else install -m 0644 desktop/gnome-shell/dconf/profile-user $(DCONFDIR)/profile/user; fi
	@if [ -z "$(DESTDIR)" ]; then dconf update; else echo "make: run dconf update once this tree is in place"; fi

# The Debian package, screentime_VERSION_ARCH.deb, in this folder (tools/make-deb; docs/install.md).
deb: deps
	$(call install_missing,dpkg-dev binutils)
	tools/make-deb .

clean:
	rm -rf .build .build-release .build-thread .build-address .build-fuzz
