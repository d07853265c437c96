// swift-tools-version: 6.0
import PackageDescription

// fastget: segmented, resumable HTTP(S) downloads. No package dependencies; the only library
// beyond the toolchain is the system OpenSSL (Debian `libssl-dev`).

// FASTGET_STATIC_OPENSSL=1 (set by scripts/build-static.sh) links libssl.a and libcrypto.a
// instead of the shared libraries; `-lssl -lcrypto` anywhere would bring the shared ones back.
let staticOpenSSL = Context.environment["FASTGET_STATIC_OPENSSL"] == "1"
let openSSL: [LinkerSetting] =
    staticOpenSSL
    ? [.unsafeFlags(["-Xlinker", "-l:libssl.a", "-Xlinker", "-l:libcrypto.a"])]
    : [.linkedLibrary("ssl"), .linkedLibrary("crypto")]

// Fault injection (Posix/SyscallFaults.swift, Storage/FaultInjection.swift) exists in debug
// builds only: the tests arm it, the shipped release and static binaries contain none of it.
let faults: [SwiftSetting] = [.define("FASTGET_FAULTS", .when(configuration: .debug))]

let package = Package(
    name: "fastget",
    products: [
        .library(name: "Fastget", targets: ["Fastget"]),
        .executable(name: "fastget", targets: ["FastgetCLI"]),
    ],
    targets: [
        // OpenSSL headers plus static inline wrappers for the macros Swift cannot import.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL"),
        // Linux-only declarations hidden from Swift's Glibc module (fallocate).
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        .target(
            name: "Fastget",
            dependencies: ["COpenSSL", "CLinux"],
            swiftSettings: faults,
            linkerSettings: openSSL
        ),
        .executableTarget(name: "FastgetCLI", dependencies: ["Fastget"]),
        // Loopback HTTP server that misbehaves on purpose, nginx and CLI harnesses, SHA-256.
        // Shared by the tests and Bench; may use Foundation.
        .target(name: "FastgetTestSupport", dependencies: ["Fastget", "COpenSSL"]),
        .executableTarget(
            name: "Bench",
            dependencies: ["Fastget", "FastgetTestSupport", "FastgetCLI", "bench-launcher"],
            path: "Benchmarks/Bench"
        ),
        // Runs one measured process and reports its own peak RSS (see launcher.c for why).
        .executableTarget(name: "bench-launcher", path: "Benchmarks/BenchLauncher"),
        .testTarget(name: "FastgetTests", dependencies: ["Fastget", "FastgetTestSupport"], swiftSettings: faults),
        // The library as an embedder sees it: `import Fastget`, never `@testable`.
        .testTarget(name: "FastgetAPITests", dependencies: ["Fastget", "FastgetTestSupport"]),
        .testTarget(
            name: "FastgetIntegrationTests",
            dependencies: ["Fastget", "FastgetTestSupport", "FastgetCLI", "Bench"],
            swiftSettings: faults
        ),
    ],
    swiftLanguageModes: [.v6]
)
