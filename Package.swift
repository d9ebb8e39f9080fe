// swift-tools-version:6.0
import PackageDescription

/// `BRADOS_FUZZ=1 swift build --product brados-fuzz --scratch-path .build-fuzz` builds the
/// fuzzing driver with libFuzzer, and the modules it fuzzes with coverage instrumentation
/// (reliability/fuzz.py). Nothing changes otherwise.
let fuzzing = Context.environment["BRADOS_FUZZ"] == "1"
let fuzzed: [SwiftSetting] = fuzzing ? [.unsafeFlags(["-sanitize=fuzzer"])] : []

let package = Package(
    name: "brados",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "brados", targets: ["brados"]),
        .executable(name: "brados-server", targets: ["brados-server"]),
        // Two targets, so swift-argument-parser's manual plugin (scripts/generate-man.sh) skips
        // it: brados-fuzz is a libFuzzer driver, not an ArgumentParser tool.
        .executable(name: "brados-fuzz", targets: ["brados-fuzz", "CFuzzDriver"]),
        .library(name: "BradOSCore", targets: ["BradOSCore"]),
        .library(name: "BradOSServer", targets: ["BradOSServer"]),
    ],
    // Exactly the versions Package.pins.json pins (it lists the transitive packages too, and
    // scripts/pins.py fails a build whose resolution differs): docs/development.md says how
    // one moves.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", exact: "2.8.1"),
        // The reference server names HTTP fields and statuses through it (Hummingbird's own types).
        .package(url: "https://github.com/apple/swift-http-types.git", exact: "1.8.0"),
    ],
    targets: [
        // libarchive, for `brados cache export/import`.
        // Headers only: the library itself is opened on first use by CArchiveLoader.
        .systemLibrary(
            name: "CArchive",
            providers: [.apt(["libarchive-dev"])]
        ),
        // A library opened with dlopen on first use, once, and the ELF note that says so: what
        // the three loaders below share.
        .target(
            name: "CLoadOnce",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        .target(
            name: "CArchiveLoader",
            dependencies: ["CLoadOnce"]
        ),
        // Pictures in the terminal: Chafa draws (kitty, iTerm2, sixel, symbols), TurboJPEG and
        // libpng decode. Headers of the decoders only: each library is opened on first use.
        .target(
            name: "CArtLoader",
            dependencies: ["CLoadOnce"]
        ),
        // The age file format (age-encryption.org/v1): keys, header, STREAM, armor. Streams in,
        // streams out; it knows nothing of archives.
        .target(
            name: "AgeEncryption",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: fuzzed
        ),
        // The system keyring (Secret Service) through libsecret, opened on first use: no headers, no link.
        .target(
            name: "CSecretLoader",
            dependencies: ["CLoadOnce"]
        ),
        // GNU extensions Swift's Glibc module does not import (syncfs, memfd_create), for the core and archives.
        .target(name: "CBradOSSystem"),
        // The shared layers under the plugin contract (docs/ARCHITECTURE.md, "Layers"), each
        // over the ones before it: the error contract every subsystem's error type follows,
        .target(name: "BradOSErrors"),
        // the terminal and what a person reads there (output, tables, widths, safe text, JSON),
        .target(
            name: "BradOSTerminal",
            dependencies: ["BradOSErrors", "CBradOSSystem", .product(name: "Logging", package: "swift-log")],
            swiftSettings: fuzzed
        ),
        // storage (atomic files, key-value, blobs, SQLite, locks, a profile's folders),
        .target(
            name: "BradOSStorage",
            dependencies: [
                "BradOSErrors", "BradOSTerminal", "CBradOSSystem",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),
        // networking (HTTP, the API client, retries, limits, WebSocket and the live connection),
        .target(
            name: "BradOSNetworking",
            dependencies: [
                "BradOSErrors", "BradOSTerminal", "BradOSStorage",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),
        // and auth (credentials, the system keyring, sign-in protocols, token refresh).
        .target(
            name: "BradOSAuth",
            dependencies: [
                "BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "CSecretLoader",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),
        // The core: the plugin contract (DomainPlugin, its capabilities, Feature, Composition),
        // the cache mechanism, the environment a command runs in, config and the exit-code
        // table. It imports no feature module.
        .target(
            name: "BradOSCore",
            dependencies: [
                "BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "BradOSAuth",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),
        // The features, one module each, over the core (docs/ARCHITECTURE.md, "Layers"):
        // `brados cache export/import/verify` and age encryption,
        .target(
            name: "BradOSArchive",
            dependencies: [
                "BradOSCore", "BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "CBradOSSystem", "CArchive", "CArchiveLoader", "AgeEncryption",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: fuzzed
        ),
        // `brados search`'s FTS5 index over the domains' search feeds,
        .target(
            name: "BradOSSearch",
            dependencies: [
                "BradOSCore", "BradOSErrors", "BradOSTerminal", "BradOSStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // `brados calendar`'s iCalendar (RFC 5545) over the domains' events (AddsToCalendar),
        .target(
            name: "BradOSCalendar",
            dependencies: ["BradOSCore", "BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking"]
        ),
        // `sync --watch --notify`'s desktop notifications over the domains' news (Notifies),
        .target(
            name: "BradOSNotifications",
            dependencies: ["BradOSCore", "BradOSErrors", "BradOSTerminal"]
        ),
        // `brados today`'s screen over the domains' sections,
        .target(
            name: "BradOSToday",
            dependencies: ["BradOSCore", "BradOSTerminal", "BradOSStorage"]
        ),
        // and pictures in the terminal (covers, the weight plot), which domains import.
        .target(
            name: "BradOSPictures",
            dependencies: [
                "BradOSCore", "BradOSErrors", "BradOSTerminal", "CArtLoader",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The domains, one module each.
        .target(
            name: "MealPlan",
            dependencies: [
                "BradOSCore", "BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),
        .target(
            name: "Visits",
            dependencies: [
                "BradOSCore", "BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),
        .target(
            name: "MusicLibrary",
            dependencies: [
                "BradOSCore", "BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "BradOSAuth", "BradOSPictures",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),
        .target(
            name: "Coach",
            dependencies: [
                "BradOSCore", "BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "BradOSAuth",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "Nutrition",
            dependencies: [
                "BradOSCore", "BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "BradOSPictures",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),
        // The reference server (library) and its thin executable.
        // zlib, for the reference server's generated PNG artwork.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "BradOSServer",
            dependencies: [
                "CZlib",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),
        .executableTarget(
            name: "brados-server",
            dependencies: [
                "BradOSServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The CLI: the root command, the core's commands (Commands/<Group>/), the process's
        // start-up and the registry of domains and features.
        .target(
            name: "BradOSCLI",
            dependencies: [
                "BradOSCore", "BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "BradOSAuth", "BradOSArchive", "BradOSSearch", "BradOSCalendar", "BradOSNotifications", "BradOSToday", "BradOSPictures",
                "AgeEncryption", "CBradOSSystem",
                "BradOSServer",
                "MealPlan",
                "Visits",
                "MusicLibrary",
                "Coach",
                "Nutrition",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The executable: `BradosMain.run(plugins: Registry.plugins)`, nothing else.
        .executableTarget(
            name: "brados",
            dependencies: ["BradOSCLI"],
            linkerSettings: [
                // Start-up (bench/startup.py): swiftc links executables with --export-dynamic,
                // which put 47,000 public symbols in .dynsym, and as a PIE the loader had to
                // relocate 141,000 pointers (435 pages copied on write) before main. A release
                // brados exports nothing and is linked at a fixed address: 9.5 -> 6.5 ms per run.
                // -z now: every symbol bound at start, so the whole GOT is read-only (full RELRO,
                // what Debian's hardening asks for); measured +0.1 ms (2-3%) on `--version`.
                .unsafeFlags(
                    ["-Xlinker", "--no-export-dynamic", "-Xlinker", "-no-pie", "-Xlinker", "-z", "-Xlinker", "now"],
                    .when(platforms: [.linux], configuration: .release)
                ),
            ]
        ),
        // The plugin-contract test executable: brados plus a sixth domain (Tests/ContractDomain),
        // run by ContractEndToEndTests. Never installed.
        .executableTarget(
            name: "brados-contract",
            dependencies: [
                "BradOSCLI", "BradOSCore", "BradOSErrors", "BradOSTerminal", "BradOSStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/ContractDomain"
        ),
        // Fuzzing driver for reliability/fuzz.py: replays inputs, or runs libFuzzer in a fuzzing build.
        .target(
            name: "CFuzzDriver",
            cSettings: fuzzing ? [.define("BRADOS_FUZZ")] : []
        ),
        .executableTarget(
            name: "brados-fuzz",
            dependencies: ["BradOSCore", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "BradOSArchive", "AgeEncryption", "MealPlan", "Visits", "MusicLibrary", "Nutrition", "BradOSServer", "CFuzzDriver"],
            swiftSettings: fuzzed,
            linkerSettings: fuzzing ? [.unsafeFlags(["-sanitize=fuzzer", "-use-ld=lld"])] : []
        ),
        // Benchmark driver for bench/ (the artwork cache side of the diskcache comparison).
        .executableTarget(
            name: "brados-bench",
            dependencies: [
                "BradOSCore", "BradOSStorage", "Coach", "Nutrition",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "TestSupport",
            dependencies: ["BradOSCore", "BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "BradOSAuth", "BradOSServer", "CZlib"],
            path: "Tests/TestSupport",
            // The pseudo-terminal the end-to-end tests run brados in (run with python3).
            exclude: ["fake-terminal.py"]
        ),
        .testTarget(
            name: "BradOSTerminalTests",
            dependencies: ["BradOSTerminal", "BradOSErrors", "TestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "BradOSStorageTests",
            dependencies: ["BradOSStorage", "BradOSErrors", "BradOSTerminal", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "BradOSNetworkingTests",
            dependencies: ["BradOSNetworking", "BradOSErrors", "BradOSTerminal", "BradOSStorage", "TestSupport"]
        ),
        .testTarget(
            name: "BradOSAuthTests",
            dependencies: ["BradOSAuth", "BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "TestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "BradOSCoreTests",
            dependencies: ["BradOSCore", "BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "BradOSAuth", "TestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "BradOSArchiveTests",
            dependencies: [
                "BradOSArchive", "BradOSCore", "BradOSTerminal", "BradOSStorage", "BradOSAuth", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Crypto", package: "swift-crypto"), .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "BradOSCalendarTests",
            dependencies: ["BradOSCalendar", "BradOSCore", "BradOSStorage", "TestSupport"]
        ),
        .testTarget(
            name: "BradOSNotificationsTests",
            dependencies: ["BradOSNotifications", "BradOSCore", "TestSupport"]
        ),
        .testTarget(
            name: "BradOSSearchTests",
            dependencies: ["BradOSSearch", "BradOSCore", "BradOSStorage", "TestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "BradOSPicturesTests",
            dependencies: ["BradOSPictures", "BradOSCore", "BradOSTerminal", "CArtLoader", "TestSupport"],
            // Images and the drawings expected of them (ArtTests), read from the source tree.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "BradOSCLITests",
            dependencies: ["BradOSCLI", "BradOSCore", "BradOSErrors", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "BradOSAuth", "TestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            exclude: ["testdata"]  // OpenPGP keys for the doctor's apt check, read from the source tree
        ),
        // C2SP's age test vectors (testdata/, read from the source tree) and round trips.
        .testTarget(
            name: "AgeEncryptionTests",
            dependencies: ["AgeEncryption", "CZlib", .product(name: "Crypto", package: "swift-crypto")],
            exclude: ["testdata"]
        ),
        .testTarget(
            name: "MealPlanTests",
            dependencies: ["MealPlan", "BradOSCore", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "TestSupport"]
        ),
        .testTarget(
            name: "VisitsTests",
            dependencies: ["Visits", "BradOSCore", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "TestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "MusicLibraryTests",
            dependencies: ["MusicLibrary", "BradOSCore", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "BradOSAuth", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "CoachTests",
            dependencies: ["Coach", "BradOSCore", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "BradOSAuth", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "NutritionTests",
            dependencies: ["Nutrition", "BradOSCore", "BradOSTerminal", "BradOSStorage", "BradOSNetworking", "BradOSAuth", "TestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "BradOSServerTests",
            dependencies: [
                "BradOSServer", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["TestSupport", .product(name: "Crypto", package: "swift-crypto")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
