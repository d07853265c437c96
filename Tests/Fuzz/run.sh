#!/usr/bin/env bash
# Fuzzes fastget's parsers with libFuzzer: the response-head parser, the chunked decoder,
# Content-Range, the URL parser, the journal decoder (every version it reads), the
# configuration file and netrc readers (their CRLF line ends), aria2's and axel's state files,
# the cookie parsers (Netscape cookie files, Set-Cookie fields), and WWW-Authenticate
# challenges with the Digest answer to them.
#
#   Tests/Fuzz/run.sh [SECONDS] [TARGET...]     (default: 600 seconds each, every target)
#
# Each target starts from its corpus in Tests/Fuzz/corpus/TARGET and adds what it finds there.
# A crash is written to Tests/Fuzz/corpus/TARGET/crash-* and the script exits 1; keep that file:
# `swift test --filter Fuzz` replays every corpus file through the same checks.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(head chunked content-range url journal config netrc aria2 axel cookie-file set-cookie authenticate)

build=.build/fuzz
mkdir -p "$build"
binary="$build/fastget-fuzz"
# The library's sources and the driver as one module; OpenSSL and Linux shims as C modules.
swiftc -swift-version 6 -O -sanitize=fuzzer,address -parse-as-library -module-name Fastget \
    -package-name fastget -I Sources/COpenSSL -I Sources/CLinux -D FASTGET_FUZZ_DRIVER \
    $(find Sources/Fastget -name '*.swift' | sort) Tests/FastgetTests/FuzzTarget.swift Tests/Fuzz/Driver.swift \
    -lssl -lcrypto -o "$binary" 2> >(grep -v "Cannot export local symbol" >&2)

status=0
for target in "${targets[@]}"; do
    corpus="Tests/Fuzz/corpus/$target"
    mkdir -p "$corpus" "$build/$target"
    echo "== $target: ${seconds}s"
    # New inputs go to a scratch directory; only crashes land next to the kept corpus.
    # Swift's own backtracer stays off: libFuzzer reports the crash, and under ASan the
    # backtracer process hangs on after the fuzzer dies, holding our stdout open.
    if ! SWIFT_BACKTRACE=enable=no FASTGET_FUZZ_TARGET="$target" "$binary" "$build/$target" "$corpus" \
        -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$corpus/" 2>"$build/$target.log"; then
        status=1
        grep -E "Fatal error|ERROR|SUMMARY" "$build/$target.log" | head -5 || true
        echo "!! $target: crash kept in $corpus (see $build/$target.log)"
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$build/$target.log" || true
done
exit $status
