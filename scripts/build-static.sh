#!/usr/bin/env bash
# Builds one fully static, stripped fastget: the Swift runtime and OpenSSL (libssl.a,
# libcrypto.a) linked in, glibc static (-static-executable). The default `swift build` keeps
# linking the shared OpenSSL. Prints the path of the binary as its last line.
#
#   scripts/build-static.sh            → .build-static/release/fastget
#
# Needs Debian's libssl-dev (it ships the .a files) and binutils (strip).
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-static
# Size: unreferenced sections go (--gc-sections), identical functions fold (--icf=all), and
# the Regex modules Swift imports implicitly are not linked (1.2 MB; the code uses no Regex).
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! FASTGET_STATIC_OPENSSL=1 swift build -c release --product fastget --scratch-path "$scratch" \
    --static-swift-stdlib -Xswiftc -static-executable \
    -Xswiftc -Xfrontend -Xswiftc -disable-implicit-string-processing-module-import \
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
if ldd "$out" >/dev/null 2>&1; then
    echo "build-static: $out is still dynamically linked:" >&2
    ldd "$out" >&2
    exit 1
fi
echo "$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
