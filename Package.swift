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
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
    ],
    targets: [
        // libarchive, for `brados cache export/import`.
        // Headers only: the library itself is opened on first use by CArchiveLoader.
        .systemLibrary(
            name: "CArchive",
            providers: [.apt(["libarchive-dev"])]
        ),
        .target(
            name: "CArchiveLoader",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // Pictures in the terminal: Chafa draws (kitty, iTerm2, sixel, symbols), TurboJPEG and
        // libpng decode. Headers of the decoders only: each library is opened on first use.
        .target(
            name: "CArtLoader",
            linkerSettings: [.linkedLibrary("dl")]
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
        // The shared core every domain builds on: storage, networking, auth, config, output.
        .target(
            name: "BradOSCore",
            dependencies: [
                "CArchive", "CArchiveLoader", "CArtLoader", "AgeEncryption",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),
        // The domains, one module each.
        .target(
            name: "MealPlan",
            dependencies: [
                "BradOSCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: fuzzed
        ),
        .target(
            name: "Visits",
            dependencies: [
                "BradOSCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: fuzzed
        ),
        .target(
            name: "MusicLibrary",
            dependencies: [
                "BradOSCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: fuzzed
        ),
        .target(
            name: "Coach",
            dependencies: [
                "BradOSCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "NutritionPlan",
            dependencies: [
                "BradOSCore",
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
            ]
        ),
        // The CLI: the root command, the process's start-up and the plugin registry.
        .target(
            name: "BradOSCLI",
            dependencies: [
                "BradOSCore",
                "BradOSServer",
                "MealPlan",
                "Visits",
                "MusicLibrary",
                "Coach",
                "NutritionPlan",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
                "BradOSCLI", "BradOSCore",
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
            dependencies: ["BradOSCore", "MealPlan", "Visits", "MusicLibrary", "NutritionPlan", "BradOSServer", "CFuzzDriver"],
            swiftSettings: fuzzed,
            linkerSettings: fuzzing ? [.unsafeFlags(["-sanitize=fuzzer", "-use-ld=lld"])] : []
        ),
        // Benchmark driver for bench/ (the artwork cache side of the diskcache comparison).
        .executableTarget(
            name: "brados-bench",
            dependencies: [
                "BradOSCore", "Coach",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "TestSupport",
            dependencies: ["BradOSCore"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "BradOSCoreTests",
            dependencies: [
                "BradOSCore", "TestSupport",
            ],
            // Images and the drawings expected of them (ArtTests), read from the source tree.
            exclude: ["Fixtures"]
        ),
        // C2SP's age test vectors (testdata/, read from the source tree) and round trips.
        .testTarget(
            name: "AgeEncryptionTests",
            dependencies: ["AgeEncryption", "CZlib"],
            exclude: ["testdata"]
        ),
        .testTarget(
            name: "MealPlanTests",
            dependencies: ["MealPlan", "TestSupport"]
        ),
        .testTarget(
            name: "VisitsTests",
            dependencies: ["Visits", "TestSupport"]
        ),
        .testTarget(
            name: "MusicLibraryTests",
            dependencies: ["MusicLibrary", "TestSupport"]
        ),
        .testTarget(
            name: "CoachTests",
            dependencies: ["Coach", "TestSupport"]
        ),
        .testTarget(
            name: "NutritionPlanTests",
            dependencies: ["NutritionPlan", "TestSupport"]
        ),
        .testTarget(
            name: "BradOSServerTests",
            dependencies: [
                "BradOSServer",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["TestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
