// swift-tools-version: 6.0
import Foundation // the manifest only: FileManager, below
import PackageDescription

// fastget: segmented, resumable HTTP(S) downloads. No package dependencies; the only library
// beyond the toolchain is the system OpenSSL (Debian `libssl-dev`).

// FASTGET_STATIC_OPENSSL=1 (set by scripts/build-static.sh) links libssl.a and libcrypto.a
// by name (its link is static, but a plain `-lssl` would be looked up as usual).
let staticOpenSSL = Context.environment["FASTGET_STATIC_OPENSSL"] == "1"
// Otherwise the library links the system's shared OpenSSL, so an embedder's program gets the
// system's security updates; the release `fastget` is a static executable (below), in which
// `-lssl -lcrypto` take the archives.
let openSSL: [LinkerSetting] =
    staticOpenSSL
    ? [.unsafeFlags(["-Xlinker", "-l:libssl.a", "-Xlinker", "-l:libcrypto.a"])]
    : [.linkedLibrary("ssl"), .linkedLibrary("crypto")]

// Fault injection (Posix/SyscallFaults.swift, Storage/FaultInjection.swift) exists in debug
// builds only: the tests arm it, the shipped release and static binaries contain none of it.
let faults: [SwiftSetting] = [.define("FASTGET_FAULTS", .when(configuration: .debug))]

// The release `fastget` lays out the code a download runs in one stretch: its peak RSS is mostly
// the static binary's text, and the kernel maps 64 KiB around each page a fault touches, so
// functions scattered over 9 MB cost a window each (6.6 MiB peak at -n 1, 4.0 MiB packed).
// lld places what scripts/fastget.order names (scripts/order-symbols.sh regenerates it) first,
// and the private functions, which have no name to list, just before them
// (scripts/fastget-private.ld). FastgetCLI and FastgetTool put every function in a section of
// its own, so that lld can move each. The library target Fastget takes no unsafe flags: SwiftPM
// refuses a version-tagged dependency whose library product has a target with any, so its code
// moves one source file's .text at a time (3.8 MiB with function sections there too). The paths
// are absolute: SwiftPM does not run the linker in the package directory. A stale order file
// costs memory only: names it lists that no longer exist are skipped without a warning; a copy
// of the sources without scripts/ links without the layout. FastgetCLI is compiled so in every
// release build (the tests' and Bench's too), which changes where its code lies, nothing else.
let layoutSections: [SwiftSetting] =
    staticOpenSSL ? [] : [.unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release))]
let layoutFiles = ["scripts/fastget.order", "scripts/fastget-private.ld"].map { "\(Context.packageDirectory)/\($0)" }
let layout =
    layoutFiles.allSatisfy { FileManager.default.fileExists(atPath: $0) }
    ? [
        "-Xlinker", "--symbol-ordering-file=\(layoutFiles[0])", "-Xlinker", "--no-warn-symbol-ordering",
        "-Xlinker", "-T", "-Xlinker", layoutFiles[1],
    ] : []

let package = Package(
    name: "fastget",
    products: [
        .library(name: "Fastget", targets: ["Fastget"]),
        .executable(name: "fastget", targets: ["FastgetTool"]),
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
        // The command line: everything `fastget` does, as a library the tests import.
        .target(name: "FastgetCLI", dependencies: ["Fastget"], swiftSettings: layoutSections),
        // The executable: `main` only. The release build is fully static: the Swift runtime,
        // OpenSSL's archives and glibc linked in, no loader, no relocation, no libstdc++
        // start-up (`fastget --version` takes 1.3 ms instead of 2.3 with shared glibc and
        // libstdc++, 7.4 with everything shared). lld links it: it does not repeat glibc's
        // notice that getaddrinfo loads NSS modules at run time, which it still does (names
        // resolve through /etc/hosts and DNS). These flags sit on this target alone, which no
        // test links: debug builds, `swift test` (also `-c release`) and the library product
        // link as usual. scripts/build-static.sh passes its own flags (gold: its post-link
        // trimming of unwind tables relies on gold's section layout).
        .executableTarget(
            name: "FastgetTool", dependencies: ["FastgetCLI"], swiftSettings: layoutSections,
            linkerSettings: staticOpenSSL
                ? [] : [.unsafeFlags(["-static-executable", "-use-ld=lld", "-Xlinker", "--icf=all"] + layout, .when(configuration: .release))]
        ),
        // Loopback HTTP server that misbehaves on purpose, nginx and CLI harnesses, SHA-256.
        // Shared by the tests and Bench; may use Foundation.
        .target(name: "FastgetTestSupport", dependencies: ["Fastget", "COpenSSL"]),
        .executableTarget(
            name: "Bench",
            dependencies: ["Fastget", "FastgetTestSupport", "FastgetTool", "bench-launcher", "bench-delay"],
            path: "Benchmarks/Bench"
        ),
        // Runs one measured process and reports its own peak RSS (see launcher.c for why).
        .executableTarget(name: "bench-launcher", path: "Benchmarks/BenchLauncher"),
        // The network lab's delay line: NFQUEUE over a raw netlink socket, kernel headers only.
        .executableTarget(name: "bench-delay", path: "Benchmarks/BenchDelay"),
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
