#!/usr/bin/env bash
# Builds the library's DocC catalog, Sources/Fastget/Fastget.docc, with the toolchain's own docc
# (no package plugin, so no dependency): the Fastget module's public symbol graph comes from
# swift-symbolgraph-extract over the debug build (which the tests then reuse), then `docc
# convert` with warnings as errors: an unresolved ``symbol`` or <doc:article> link, or a doc comment
# DocC cannot read, fails the build. .ci/run runs this. Prints the archive's path last.
set -euo pipefail
cd "$(dirname "$0")/.."

swift_path="$(readlink -f "$(command -v swift)")"
docc="${DOCC:-$(dirname "$swift_path")/docc}"
[ -x "$docc" ] || docc="$(command -v docc)" || { echo "build-docs: no docc beside swift or on PATH" >&2; exit 1; }

out=.build/docs
graphs="$out/symbol-graphs"
rm -rf "$out"
mkdir -p "$graphs"
# Only the library is built and extracted: `swift package dump-symbol-graph` would also want
# every test module built, which a clean clone does not have yet.
swift build --target Fastget >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }
bin="$(swift build --show-bin-path)"
triple="$(basename "$(dirname "$bin")")" # .build/x86_64-unknown-linux-gnu/debug
"$(dirname "$swift_path")/swift-symbolgraph-extract" -module-name Fastget -target "$triple" \
    -module-cache-path "$bin/ModuleCache" -I "$bin/Modules" \
    -Xcc -fmodule-map-file=Sources/COpenSSL/module.modulemap -Xcc -fmodule-map-file=Sources/CLinux/module.modulemap \
    -minimum-access-level public -skip-synthesized-members -output-dir "$graphs" >"$out/extract.log" 2>&1 \
    || { cat "$out/extract.log" >&2; exit 1; }

"$docc" convert Sources/Fastget/Fastget.docc \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name Fastget --fallback-bundle-identifier fastget.Fastget \
    --warnings-as-errors \
    --output-path "$out/Fastget.doccarchive" >"$out/convert.log" 2>&1 \
    || { cat "$out/convert.log" >&2; exit 1; }
echo "$out/Fastget.doccarchive"
