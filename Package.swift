// swift-tools-version:6.1
import PackageDescription

/// This folder, for the linker's inputs that are files of the repository.
let packageFolder = String(#filePath.dropLast("/Package.swift".count))

let package = Package(
    name: "screentime",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "screentimed", targets: ["screentimed"]),
        .executable(name: "stctl", targets: ["stctl"]),
        .executable(name: "screentime-hook-x11", targets: ["screentime-hook-x11"]),
        .executable(name: "screentime-web", targets: ["screentime-web"]),
        .executable(name: "screentime-household", targets: ["screentime-household"]),
        .executable(name: "screentime-browser-host", targets: ["screentime-browser-host"]),
    ],
    dependencies: [
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // The parents' page (issue #21). Without its default traits: swift-configuration and all of
        // Foundation are not needed.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // The family database (issue #20).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // The engine: events in, effects out. Pure; Foundation at most.
        // Optimized in the debug build too: the tests and the development daemons fold long
        // event logs through it (a month of events per calendar seed ran 9 s unoptimized).
        .target(name: "ScreenTimeCore", swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // screentime's words in the family's language: gettext catalogs (po/) read by hand
        // (MessageCatalog says why), plural rules, whose language a process's environment asks for.
        .target(name: "ScreenTimeWords"),
        // The policy file: TOML text into the engine's validated Policy, with file:line errors.
        .target(name: "ScreenTimePolicy", dependencies: [
            "ScreenTimeCore", "ScreenTimeWords",
            .product(name: "TOMLKit", package: "TOMLKit"),
        ], swiftSettings: onlyWhatIsImported),
        // The state of a child in SQLite: event log, policy history, hash-chained ledger, sessions,
        // checkpoints; and LiveState, which keeps the engine and the store in step.
        .target(name: "ScreenTimeStore", dependencies: [
            "ScreenTimeCore", "ScreenTimePolicy", "CShims",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // Requests and replies of the control socket, and their framing: shared by daemon and stctl.
        .target(name: "ControlProtocol", dependencies: ["ScreenTimeCore", "ScreenTimeWords"]),
        // libsystemd (sd-bus, sd-daemon, sd-journal): Debian's libsystemd-dev.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // libcrypt (crypt_r, yescrypt) for the parent passphrase: Debian's libcrypt-dev.
        .systemLibrary(name: "CCrypt", providers: [.apt(["libcrypt-dev"])]),
        // pidfd_open and pidfd_send_signal, through syscall(2).
        .systemLibrary(name: "CShims"),
        // The kernel's process events (netlink's proc connector), in C of its own: the kernel's headers stay out of Swift's sight.
        .target(name: "CProcessEvents"),
        // SIGTERM, SIGINT and SIGHUP noted by a plain handler for the run loop (no libdispatch thread).
        .target(name: "CSignals"),
        // The Linux shell: the /proc sampler, clocks, user accounts, sockets. Each C call wrapped once.
        .target(name: "ScreenTimeLinux", dependencies: ["ScreenTimeCore", "CCrypt", "CShims", "CProcessEvents", "CSignals"]),
        // The shell's parts that speak through libsystemd: D-Bus (logind, notifications, KWin), the
        // journal, the service manager. Apart so that stctl, which needs none of it, does not load
        // libsystemd and the five libraries it brings (0.7 ms a start; docs/benchmarks.md).
        .target(name: "ScreenTimeSystemd", dependencies: [
            "ScreenTimeCore", "ScreenTimeLinux", "CSystemd",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Xlib with XScreenSaver and X-Resource, for the X11 hook only: Debian's libx11-dev,
        // libxss-dev, libxres-dev, libxi-dev. stctl itself links none of it.
        .systemLibrary(name: "CX11", providers: [.apt(["libx11-dev", "libxss-dev", "libxres-dev", "libxi-dev"])]),
        // Desktop hooks: the connection to the daemon, when to report input, the sway hook.
        .target(name: "DesktopHooks", dependencies: ["ScreenTimeCore", "ScreenTimeLinux", "ControlProtocol"]),
        .executableTarget(name: "screentime-hook-x11", dependencies: ["CX11", "DesktopHooks", "ControlProtocol", "ScreenTimeCore", "ScreenTimeLinux"]),
        // The native messaging host of the browser extension (docs/spec/sites.md): relays reports and answers.
        .executableTarget(name: "screentime-browser-host", dependencies: ["DesktopHooks", "ControlProtocol", "ScreenTimeCore", "ScreenTimeLinux"]),
        // The KDE Plasma hook (`stctl hook kde` execs `screentimed kde-hook`, which runs it): beside
        // DesktopHooks, in a module of its own because it speaks D-Bus through libsystemd, which
        // stctl must not load (docs/benchmarks.md).
        .target(name: "DesktopHooksKDE", dependencies: ["DesktopHooks", "ScreenTimeCore", "ScreenTimeLinux", "ScreenTimeSystemd"]),
        // The child's logic the daemon carries out, as value types that decide from the time and
        // their inputs (issue #37): unit-tested with a fake clock in ScreenTimeDaemonTests.
        .target(name: "ScreenTimeDaemon", dependencies: ["ScreenTimeCore", "ControlProtocol", "ScreenTimeWords"]),
        .executableTarget(name: "screentimed", dependencies: [
            "ScreenTimeDaemon", "DesktopHooksKDE", "ScreenTimeCore", "ScreenTimePolicy", "ScreenTimeStore", "ScreenTimeLinux", "ScreenTimeSystemd", "ControlProtocol", "DesktopHooks", "ScreenTimeWords",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ],
        // The functions the daemon runs once started, side by side (gold puts the listed ones
        // after the rest of the code; issue #19): the kernel maps code 64 KiB around each page
        // touched, so a loop whose code is spread over the program keeps most of it mapped.
        // tools/order-hot-code makes the list; the Makefile's release flags give each function
        // a section of its own, without which there is nothing to move.
        // Every function it calls in a shared library bound at start (-z now, as Debian's
        // hardening asks): bound lazily, the first call of each after start-up looked its name
        // up in the program's own table of 100,000 exported symbols, whose pages then stayed.
        // TEST_FAULTS: the faults tests provoke through the environment (a wedged run loop, a
        // crash at a point of the household's conversation) exist in debug builds only; the
        // installed, release daemon has none to be switched on.
        swiftSettings: [.define("TEST_FAULTS", .when(configuration: .debug))],
        linkerSettings: [.unsafeFlags(["-Xlinker", "--section-ordering-file=\(packageFolder)/tools/screentimed.order",
                                       "-Xlinker", "-z", "-Xlinker", "now"],
                                      .when(configuration: .release))]),
        .executableTarget(name: "stctl", dependencies: [
            "ScreenTimeWords",
            "ScreenTimeCore", "ScreenTimePolicy", "ScreenTimeLinux", "ControlProtocol", "DesktopHooks",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: onlyWhatIsImported,
        // A position-dependent executable (issue #19): the static stctl's 58,000 relative
        // relocations are then resolved when it is linked, not each time it starts (174 pages
        // written at every start; `stctl --version` 7.2 → 5.2 ms, 555 → 419 page faults).
        // It runs as its user, privileged nowhere, so the address randomization of its own
        // image (its libraries keep theirs) protects nothing; the daemon and the hooks stay PIE,
        // and so do debug builds (the sanitizers want PIE).
        linkerSettings: [.unsafeFlags(["-Xclang-linker", "-no-pie"], .when(configuration: .release))]),
        // A family's machines sharing one ledger in PostgreSQL (issue #20; docs/household.md): the
        // schema, and the ledger through a machine's append-only role (PostgresNIO).
        .target(name: "ScreenTimeHousehold", dependencies: [
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        // screentime-household: `setup` of the family database, and the `link` screentimed starts
        // to speak PostgreSQL for it (a process of its own: the daemon loads no network stack).
        .executableTarget(name: "screentime-household", dependencies: [
            "ScreenTimeHousehold", "ControlProtocol",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The parents' page: what it shows and how it keeps a parent's session, without a server
        // (pages are HTML from the daemon's replies; docs/web.md).
        .target(name: "ParentsPage", dependencies: ["ControlProtocol", "ScreenTimeCore", "ScreenTimeLinux", "ScreenTimeWords"]),
        // screentime-web: the parents' page served over HTTP(S) by Hummingbird, a client of the
        // control socket like stctl (docs/web.md).
        .executableTarget(name: "screentime-web", dependencies: [
            "ParentsPage", "ControlProtocol", "ScreenTimeCore", "ScreenTimeLinux", "ScreenTimeWords",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Coverage-guided fuzz targets (docs/fuzzing.md): the readers a child's input reaches, and
        // the engine. `make fuzz` builds screentime-fuzz with libFuzzer; built plainly it runs saved inputs.
        .target(name: "ScreenTimeFuzz", dependencies: ["ScreenTimeCore", "ScreenTimePolicy", "ControlProtocol"]),
        .executableTarget(name: "screentime-fuzz", dependencies: ["ScreenTimeFuzz"]),
        // `make bench`: replay throughput on a generated week of events.
        // `make bench`: 200 machines of a school lab sharing one PostgreSQL (issue #20).
        .executableTarget(name: "HouseholdBenchmark", dependencies: [
            "ScreenTimeHousehold", "ScreenTimeLinux",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "ReplayBenchmark", dependencies: ["ScreenTimeCore", "ScreenTimePolicy", "ScreenTimeStore",
                                                                 "ScreenTimeLinux", "ScreenTimeSystemd", "ControlProtocol"]),
        .testTarget(name: "ScreenTimeCoreTests", dependencies: ["ScreenTimeCore", "ScreenTimePolicy", "ControlProtocol"]),
        .testTarget(name: "ScreenTimeWordsTests", dependencies: ["ScreenTimeWords", "TestSupport"]),
        .testTarget(name: "ScreenTimePolicyTests", dependencies: ["ScreenTimePolicy", "ScreenTimeCore", "ScreenTimeWords", "TestSupport"],
                    exclude: ["Scripts"], resources: [.copy("Malformed")]),
        .testTarget(name: "ScreenTimeStoreTests", dependencies: ["ScreenTimeStore", "ScreenTimeCore", "ScreenTimePolicy"]),
        // Real components the tests run against (a D-Bus daemon with dbusmock's logind, …).
        .target(name: "TestSupport", dependencies: ["ScreenTimeLinux", "ScreenTimeSystemd"], path: "Tests/TestSupport"),
        .testTarget(name: "ScreenTimeLinuxTests", dependencies: ["ScreenTimeLinux", "ScreenTimeSystemd", "ScreenTimeCore", "TestSupport"]),
        .testTarget(name: "ControlProtocolTests", dependencies: ["ControlProtocol"]),
        .testTarget(name: "ScreenTimeDaemonTests", dependencies: ["ScreenTimeDaemon", "ScreenTimeCore", "ScreenTimePolicy", "ControlProtocol"]),
        .testTarget(name: "ParentsPageTests", dependencies: ["ParentsPage", "ControlProtocol", "ScreenTimeCore", "ScreenTimeWords"]),
        .testTarget(name: "HouseholdTests", dependencies: ["ScreenTimeHousehold", "TestSupport",
                                                           .product(name: "PostgresNIO", package: "postgres-nio"),
                                                           .product(name: "Logging", package: "swift-log")]),
        // Every input in Fuzz/*/corpus and Fuzz/*/regressions, through its fuzz target.
        .testTarget(name: "FuzzCorpusTests", dependencies: ["ScreenTimeFuzz"]),
        .testTarget(name: "DesktopHooksTests", dependencies: ["DesktopHooks", "ScreenTimeCore", "ControlProtocol"]),
        .testTarget(name: "EndToEndTests", dependencies: ["ScreenTimeCore", "ScreenTimePolicy", "ScreenTimeLinux", "ScreenTimeSystemd", "ControlProtocol", "ScreenTimeWords", "TestSupport"], exclude: ["Scripts"]),
    ]
)

/// stctl imports FoundationEssentials, never all of Foundation (docs/benchmarks.md: a third of
/// its start-up time). TOMLKit imports Foundation, and without this setting Foundation's
/// String methods (contains, range(of:)) would be chosen over the standard library's in every
/// file that sees TOMLKit, linking all of Foundation in.
var onlyWhatIsImported: [SwiftSetting] { [.enableUpcomingFeature("MemberImportVisibility")] }

/// `make test`'s thread-sanitizer build runs every suite but the end-to-end ones (those run the
/// plain programs, .build/debug's). With SCREENTIME_UNIT_TESTS_ONLY=1 this manifest leaves the
/// programs and the end-to-end tests out, so that build does not compile them, and Hummingbird,
/// a second time for nothing: the build waited for after the tests is the longest step of `make test`.
if Context.environment["SCREENTIME_UNIT_TESTS_ONLY"] == "1" {
    package.targets.removeAll { $0.type == .executable || $0.name == "EndToEndTests" }
    package.products.removeAll()
    package.dependencies.removeAll { if case .sourceControl(_, let location, _) = $0.kind, "\(location)".hasSuffix("/hummingbird") { true } else { false } }
}
