#!/usr/bin/env bash
# Builds one fully static, stripped fastget: the Swift runtime and OpenSSL (libssl.a,
# libcrypto.a) linked in, glibc static (-static-executable). The default `swift build` keeps
# linking the shared OpenSSL. Prints the path of the binary as its last line.
#
#   scripts/build-static.sh [--keep-unwind-tables]   → .build-static/fastget
#
# Needs Debian's libssl-dev (it ships the .a files), binutils (strip, objcopy, ar) and a C
# compiler (the toolchain's clang). The unstripped binary, with symbols and unwind tables at
# the same addresses, stays at .build-static/release/fastget for post-mortem debugging.
#
# What keeps the binary small (Benchmarks/README.md gives what each saves):
# - --gc-sections and --icf=all: unreferenced sections go, identical functions fold;
# - the Regex modules Swift imports implicitly are not linked (the code uses no Regex);
# - FASTGET_NO_CONCURRENCY: the library's async functions (`events()`, `result()`) are left
#   out, so the concurrency runtime and libdispatch are not linked (the CLI never awaits);
# - the runtime's own functions are made collectable: its archive marks them retained, which
#   keeps every one of them alive under --gc-sections (elf-slim unretain on a copy);
# - no unwind tables (.eh_frame, .eh_frame_hdr) in the shipped file: a static Swift binary
#   prints no backtrace either way, and nothing in fastget unwinds (no C++ exceptions, no
#   pthread_cancel). --keep-unwind-tables keeps them (+1.3 MB) for debuggers on the target.
set -euo pipefail
cd "$(dirname "$0")/.."

keepUnwindTables=0
for argument in "$@"; do
    case "$argument" in
    --keep-unwind-tables) keepUnwindTables=1 ;;
    *) echo "usage: scripts/build-static.sh [--keep-unwind-tables]" >&2; exit 2 ;;
    esac
done

scratch=.build-static
slim="$scratch/slim"
mkdir -p "$slim"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

cc=""
for candidate in "${CC:-}" clang cc gcc; do
    if [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1; then cc="$candidate"; break; fi
done
[ -n "$cc" ] || { echo "build-static: no C compiler (clang, cc or gcc) for scripts/elf-slim.c" >&2; exit 1; }
"$cc" -O2 -o "$slim/elf-slim" scripts/elf-slim.c

# The static runtime, with its Swift code's function sections collectable: a tree of links to
# the toolchain's static resource directory in which libswiftCore.a is a copy whose Swift.o
# went through elf-slim unretain. Passed as -resource-dir, so the driver links from it.
staticResources="$(swift -print-target-info | sed -n 's/.*"runtimeResourcePath": "\(.*\)".*/\1/p')_static"
[ -f "$staticResources/linux/libswiftCore.a" ] || { echo "build-static: no static Swift runtime in $staticResources" >&2; exit 1; }
rm -rf "$slim/swift_static"
cp -rs "$staticResources" "$slim/swift_static"
runtime="$slim/swift_static/linux/libswiftCore.a"
rm "$runtime"
cp "$staticResources/linux/libswiftCore.a" "$runtime"
(cd "$slim" && ar x "$staticResources/linux/libswiftCore.a" Swift.o && ./elf-slim unretain Swift.o >/dev/null &&
    ar r "$(pwd)/swift_static/linux/libswiftCore.a" Swift.o && rm Swift.o)

if ! FASTGET_STATIC_OPENSSL=1 swift build -c release --product fastget --scratch-path "$scratch" \
    --static-swift-stdlib -Xswiftc -static-executable \
    -Xswiftc -Xfrontend -Xswiftc -disable-implicit-string-processing-module-import \
    -Xswiftc -Xfrontend -Xswiftc -disable-implicit-concurrency-module-import \
    -Xswiftc -DFASTGET_NO_CONCURRENCY \
    -Xswiftc -resource-dir -Xswiftc "$(pwd)/$slim/swift_static" \
    -Xlinker --gc-sections -Xlinker --icf=all >"$log" 2>&1; then
    cat "$log" >&2
    echo "build-static: the build failed" >&2
    exit 1
fi
# glibc's warnings that getaddrinfo and friends load NSS modules at run time are expected:
# /etc/hosts and DNS still work from an empty root.
grep -i "warning" "$log" | grep -v "statically linked applications requires at runtime" >&2 || true
binary="$scratch/release/fastget"
[ -x "$binary" ] || { echo "build-static: no binary at $binary" >&2; exit 1; }
out="$scratch/fastget"
strip --strip-all -o "$out" "$binary"
if [ "$keepUnwindTables" = 0 ]; then
    objcopy --remove-section=.eh_frame --remove-section=.eh_frame_hdr "$out"
    "$slim/elf-slim" drop-eh-frame-header "$out" >/dev/null
fi
if ldd "$out" >/dev/null 2>&1; then
    echo "build-static: $out is still dynamically linked:" >&2
    ldd "$out" >&2
    exit 1
fi
echo "$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
