// swift-tools-version:6.2
import PackageDescription

/// Settings every target shares.
let strictSettings: [SwiftSetting] = [
    // Strict concurrency is part of the Swift 6 language mode; warnings must not pile up.
    .treatAllWarnings(as: .error),
    // `any P` spelled out, so existential costs are visible.
    .enableUpcomingFeature("ExistentialAny"),
    // Imports must be explicit in the file that uses them.
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// Settings of the library and executable targets only: with it, the test targets do not build, because the test
/// macros' registration records (`@Test`, `@Suite`) are then not compile-time constants (Swift 6.3.1).
let codeSettings: [SwiftSetting] = [
    // A nonisolated async function, or function type, runs on its caller's executor unless marked `@concurrent`.
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

let package = Package(
    name: "MatterFlow",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MatterFlow", targets: ["MatterFlow"]),
        .library(name: "MatterFlowSimulator", targets: ["MatterFlowSimulator"]),
        .library(name: "MatterFlowJournal", targets: ["MatterFlowJournal"]),
        .library(name: "MatterFlowStore", targets: ["MatterFlowStore"]),
        .library(name: "MatterFlowHubProtocol", targets: ["MatterFlowHubProtocol"]),
        .library(name: "MatterFlowFixtures", targets: ["MatterFlowFixtures"]),
        .library(name: "MatterFlowJSON", targets: ["MatterFlowJSON"]),
        .library(name: "MatterPayload", targets: ["MatterPayload"]),
        .library(name: "ThreadDataset", targets: ["ThreadDataset"]),
        .executable(name: "matterflow", targets: ["matterflow"]),
        .executable(name: "matterflow-bench", targets: ["matterflow-bench"]),
    ],
    targets: [
        // MARK: - C boundary
        .systemLibrary(
            name: "CJSONC",
            pkgConfig: "json-c",
            providers: [.apt(["libjson-c-dev"])]
        ),
        // libpq's header only: the library is opened when a store is first used (MatterFlowStore/LibPQ.swift).
        .systemLibrary(name: "CLibPQ", providers: [.apt(["libpq-dev"])]),
        // glibc's allocator statistics, for the benchmarks' live-heap figures.
        .systemLibrary(name: "CMallocStats"),

        // MARK: - Core libraries
        .target(name: "MatterFlowJSON", dependencies: ["CJSONC"]),
        .target(name: "MatterPayload"),
        // SHA-256's compression with the x86 SHA instructions, for ThreadDataset's SHA256 where the processor has them.
        .target(name: "CSHA256"),
        // A signal handler that writes each handled signal to a pipe: a signal is caught from the instant it is
        // installed, where a dispatch source's registration could let one pass.
        .target(name: "CSignalRelay"),
        .target(name: "ThreadDataset", dependencies: ["CSHA256"]),
        .target(name: "MatterFlow", dependencies: ["MatterFlowJSON", "MatterPayload", "ThreadDataset"]),
        .target(name: "MatterFlowSimulator", dependencies: ["MatterFlow", "MatterFlowJSON", "MatterPayload", "ThreadDataset"]),
        .target(name: "MatterFlowFixtures", dependencies: ["MatterFlow", "MatterFlowSimulator", "MatterFlowJSON"]),
        .target(name: "MatterFlowJournal", dependencies: ["MatterFlow", "MatterFlowJSON", "ThreadDataset"]),
        .target(name: "MatterFlowHubProtocol", dependencies: ["MatterFlow", "MatterFlowJSON", "ThreadDataset"]),
        // The run store shared by a fleet of workers (PostgreSQL through libpq, or a journal directory).
        .target(name: "MatterFlowStore", dependencies: ["MatterFlow", "MatterFlowJournal", "MatterFlowJSON", "CLibPQ"]),

        // MARK: - Command line
        .target(
            name: "MatterFlowCLI",
            dependencies: [
                "MatterFlow", "MatterFlowSimulator", "MatterFlowFixtures", "MatterFlowJournal", "MatterFlowJSON",
                "MatterFlowHubProtocol", "MatterPayload", "ThreadDataset", "MatterFlowStore", "CSignalRelay",
            ]
        ),
        .executableTarget(name: "matterflow", dependencies: ["MatterFlowCLI"]),

        // MARK: - Benchmarks (release builds: swift run -c release matterflow-bench)
        .target(
            name: "MatterFlowBenchmarks",
            dependencies: [
                "MatterFlow", "MatterFlowSimulator", "MatterFlowJSON", "MatterFlowJournal", "MatterPayload", "ThreadDataset",
                "CMallocStats",
            ]
        ),
        .executableTarget(name: "matterflow-bench", dependencies: ["MatterFlowBenchmarks"]),

        // MARK: - Examples
        .executableTarget(
            name: "custom-hub-example",
            dependencies: ["MatterFlow"],
            path: "Examples/CustomHub"
        ),

        // MARK: - Tests
        // Published Thread datasets, shared by every test target that needs one.
        .target(name: "ThreadTestVectors", path: "Tests/ThreadTestVectors"),
        // Test support shared by test targets: gates that hold hub calls, bounded waits, a seeded generator.
        .target(name: "TestGates", path: "Tests/TestGates"),
        .testTarget(name: "MatterFlowJSONTests", dependencies: ["MatterFlowJSON", "TestGates"]),
        .testTarget(name: "MatterPayloadTests", dependencies: ["MatterPayload", "TestGates"]),
        .testTarget(name: "ThreadDatasetTests", dependencies: ["ThreadDataset", "ThreadTestVectors", "TestGates"]),
        .testTarget(
            name: "MatterFlowTests",
            dependencies: ["MatterFlow", "MatterFlowSimulator", "MatterFlowJSON", "MatterPayload", "ThreadDataset", "ThreadTestVectors", "MatterFlowBenchmarks", "TestGates"]
        ),
        .testTarget(name: "MatterFlowBenchmarksTests", dependencies: ["MatterFlowBenchmarks", "MatterFlowJSON"]),
        .testTarget(
            name: "MatterFlowSimulatorTests",
            dependencies: ["MatterFlowSimulator", "MatterFlow", "MatterFlowJSON", "ThreadDataset", "ThreadTestVectors"]
        ),
        .testTarget(
            name: "MatterFlowFixturesTests",
            dependencies: ["MatterFlowFixtures", "MatterFlow", "MatterFlowSimulator", "MatterFlowJSON"]
        ),
        .testTarget(
            name: "MatterFlowJournalTests",
            dependencies: ["MatterFlowJournal", "MatterFlow", "MatterFlowSimulator", "MatterFlowJSON", "ThreadDataset", "TestGates"]
        ),
        .testTarget(
            name: "MatterFlowHubProtocolTests",
            dependencies: ["MatterFlowHubProtocol", "MatterFlow", "MatterFlowSimulator", "MatterFlowFixtures", "MatterFlowJSON"]
        ),
        .testTarget(
            name: "MatterFlowCLITests",
            dependencies: [
                "MatterFlowCLI", "MatterFlow", "MatterFlowSimulator", "MatterPayload", "MatterFlowJournal", "MatterFlowJSON",
                "MatterFlowHubProtocol", "ThreadTestVectors", "matterflow", "matterflow-bench", "MatterFlowStore", "TestGates",
            ]
        ),
    ]
)

for target in package.targets where target.type != .system && !["CSHA256", "CSignalRelay"].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + strictSettings + (target.type == .test ? [] : codeSettings)
}
