// swift-tools-version:6.2
import PackageDescription

// libFuzzer targets for MatterFlow's parsers. Built only by Fuzz/run.sh, with `-sanitize=fuzzer,address`: without
// libFuzzer's `main` the executable does not link, so it is a package of its own and never part of `swift build`.
let package = Package(
    name: "MatterFlowFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "MatterFlow", path: "..")],
    targets: [
        .target(name: "CFuzzDriver"),
        .executableTarget(
            name: "matterflow-fuzz",
            dependencies: [
                "CFuzzDriver",
                .product(name: "MatterFlow", package: "MatterFlow"),
                .product(name: "MatterFlowSimulator", package: "MatterFlow"),
                .product(name: "MatterFlowFixtures", package: "MatterFlow"),
                .product(name: "MatterFlowJournal", package: "MatterFlow"),
                .product(name: "MatterFlowJSON", package: "MatterFlow"),
                .product(name: "MatterPayload", package: "MatterFlow"),
                .product(name: "ThreadDataset", package: "MatterFlow"),
            ],
            swiftSettings: [
                .treatAllWarnings(as: .error),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
                // libFuzzer provides `main`; the entry point is `LLVMFuzzerTestOneInput`.
                .unsafeFlags(["-parse-as-library"]),
            ]
        )
    ]
)
