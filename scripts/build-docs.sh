#!/usr/bin/env bash
# Builds the library's DocC catalog, Sources/Fastget/Fastget.docc, with the toolchain's own docc
# (no package plugin, so no dependency): the Fastget module's public symbol graph comes from
# `swift package dump-symbol-graph` (after a debug build, which it reuses), then `docc convert`
# with warnings as errors: an unresolved ``symbol`` or <doc:article> link, or a doc comment
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
swift package dump-symbol-graph --minimum-access-level public --skip-synthesized-members >"$out/dump.log" 2>&1 \
    || { cat "$out/dump.log" >&2; exit 1; }
# The dump covers every module of the package (tests and tools too); the catalog is the library's.
dump_dir="$(sed -n 's/^Files written to //p' "$out/dump.log" | tail -n 1)"
[ -n "$dump_dir" ] || dump_dir="$(find .build -type d -name symbolgraph -newer "$out" | head -n 1)"
cp "$dump_dir"/Fastget.symbols.json "$graphs"/
cp "$dump_dir"/Fastget@*.symbols.json "$graphs"/ 2>/dev/null || true

"$docc" convert Sources/Fastget/Fastget.docc \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name Fastget --fallback-bundle-identifier fastget.Fastget \
    --warnings-as-errors \
    --output-path "$out/Fastget.doccarchive" >"$out/convert.log" 2>&1 \
    || { cat "$out/convert.log" >&2; exit 1; }
echo "$out/Fastget.doccarchive"
