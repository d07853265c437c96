#!/usr/bin/env bash
# Regenerates scripts/fastget.order, the symbol ordering file lld lays the release `fastget`
# out with (Package.swift passes it as --symbol-ordering-file): every function a download
# executes, so that they sit together at the start of .text.
#
#   scripts/order-symbols.sh [--fresh] URL [BINARY]
#
# URL: a plain-HTTP file of some tens of MiB (a local nginx will do). BINARY: an unstripped
# fastget, by default .build/release/fastget (`swift build -c release --product fastget`).
# Needs valgrind (callgrind lists every function entered, which sampling would not), nm,
# readelf, ar, python3, the swift that built the binary (for its static runtime), timeout, and
# perf if at hand and permitted (see below). Names already in the file are kept if the binary
# still defines them (--fresh starts over). After a change to the file, `rm
# .build/release/fastget` before `swift build`: SwiftPM does not know the link depends on it.
#
# Why: fastget's peak RSS at -n 1 is mostly the file-backed text of the static binary, and the
# kernel maps 64 KiB (fault_around_bytes) around each page a fault touches. Code run once,
# scattered over 9 MB, costs a 64 KiB window per function; packed, a few windows in all.
#
# The file lists names, not addresses: as code changes, a renamed or removed function's line
# matches nothing (lld is told not to warn), and a new function is laid out as if the file did
# not exist. Either only costs memory, never correctness. Regenerate after larger changes.
#
# What cannot move alone: the part of libswiftCore.a's Swift.o compiled without function
# sections (one 1.6 MB .text); the library target Fastget's functions, which move one source
# file's .text at a time (Package.swift gives that target no unsafe flags); the whole-object
# sections of libc.a, libcrypto.a, libssl.a (their objects move as a unit, one name each would
# do). One name in Swift.o's .text is listed last, so that it follows the packed functions.
# glibc's string functions are chosen at start-up for the CPU (valgrind's emulated CPU has no
# AVX-512); every variant of a family that ran is listed.
set -euo pipefail

fresh=0
if [ "${1:-}" = --fresh ]; then fresh=1; shift; fi
url="${1:?usage: scripts/order-symbols.sh [--fresh] URL [BINARY]}"
# A BINARY given relative to where the script was started, before the cd below.
binary="${2:-}"
if [ -n "$binary" ]; then binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"; fi
cd "$(dirname "$0")/.."
binary="${binary:-$(pwd)/.build/release/fastget}"
[ -x "$binary" ] || { echo "order-symbols: no binary at $binary" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "order-symbols: needs valgrind" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The scenarios: start-up alone, one connection quiet, several with the progress display.
run=0
profile() {
    run=$((run + 1))
    # A download that fails (a wrong URL, a server gone) would profile an error path instead:
    # stop rather than write an order file from it. Each run is bounded.
    if ! timeout 900 valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no \
        --callgrind-out-file="$work/cg.$run" --log-file="$work/log.$run" "$binary" "$@" >/dev/null 2>&1; then
        echo "order-symbols: '$binary $*' failed under valgrind (see the URL); nothing written" >&2
        exit 1
    fi
    rm -f "$work/out"
}
scenarios() {
    "$@" --version
    "$@" -n 1 -q -o "$work/out" "$url"
    "$@" -n 1 -o "$work/out" "$url"
    "$@" -n 4 -o "$work/out" "$url"
}
scenarios profile
# valgrind misses what runs only on the real machine (glibc's vDSO set-up: valgrind offers
# none; code that depends on timing). The page faults of native runs catch it, on the first
# touch of each page: on a binary laid out by an earlier file, every function outside the
# packed ones faults, so a second pass over the new build adds what the first one missed.
native() {
    run=$((run + 1))
    timeout 900 perf record -q -e page-faults -c 1 -d -o "$work/perf.$run" "$binary" "$@" >/dev/null 2>&1 ||
        echo "order-symbols: perf failed on '$*' (not permitted?); its page faults are left out" >&2
    perf script -i "$work/perf.$run" -F addr 2>/dev/null >>"$work/faults" || true
    rm -f "$work/out"
}
touch "$work/faults"
if command -v perf >/dev/null; then scenarios native; fi

nm -S --defined-only "$binary" >"$work/nm"
readelf -lW "$binary" | awk '$1 == "LOAD" && / R E / { print $3, $6 }' >"$work/segments"
# The runtime's Swift.o, whose plain .text holds the functions that cannot be reordered.
resources="$(swift -print-target-info | sed -n 's/.*"runtimeResourcePath": "\(.*\)".*/\1/p')_static"
(cd "$work" && ar x "$resources/linux/libswiftCore.a" Swift.o)
text=$(readelf -SW "$work/Swift.o" | sed -n 's/^ *\[ *\([0-9]*\)\] \.text .*/\1/p')
readelf -SW "$work/Swift.o" | sed -n 's/^ *\[ *[0-9]*\] \.text  *[A-Z]*  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p' >"$work/unmovable"
readelf -sW "$work/Swift.o" | awk -v text="$text" '$7 == text { print $2, $5, $8 }' >>"$work/unmovable"
python3 - "$work" scripts/fastget.order "$fresh" <<'PYTHON'
import bisect
import glob
import re
import sys

work, out, fresh = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
names = set()
if not fresh:  # keep what earlier runs found: page faults see only the first touch of a page
    try:
        names.update(open(out).read().split())
    except FileNotFoundError:
        pass
for path in glob.glob(work + "/cg.*"):
    for line in open(path, errors="replace"):
        if line.startswith("fn="):
            names.add(line[3:].strip())

functions = []  # (address, size or None, name) of the binary's code symbols
for line in open(work + "/nm"):
    parts = line.split()
    if len(parts) == 4 and parts[2] in "tTWwi":
        functions.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    elif len(parts) == 3 and parts[1] in "tTWwi":  # crtbeginT's helpers have no size
        functions.append((int(parts[0], 16), None, parts[2]))
functions.sort(key=lambda function: function[0])
starts = [f[0] for f in functions]
known = {f[2] for f in functions}

chosen = set()
code = [line.split() for line in open(work + "/segments")]  # executable PT_LOADs: start, size
for line in open(work + "/faults"):  # addresses of native page faults, code ones only
    address = int(line, 16) if line.strip() else -1
    if any(int(start, 16) <= address < int(start, 16) + int(size, 16) for start, size in code):
        names.add(hex(address))
for name in names:
    if name.startswith("0x"):  # no symbol at the entry: name the function containing it
        address = int(name, 16)
        index = bisect.bisect_right(starts, address) - 1
        # Past the symbol's end: a private function (.L name, no symbol), which
        # scripts/fastget-private.ld places instead.
        if index >= 0 and (functions[index][1] is None or address < functions[index][0] + functions[index][1]):
            chosen.add(functions[index][2])
    elif name in known:
        chosen.add(name)

# glibc multiarch families: __memchr_avx2 ran under valgrind, __memchr_evex runs on AVX-512.
variant = re.compile(r"^(__[a-z0-9]+?(?:_chk)?)_(?:sse2|ssse3|sse4_?2|avx|avx2|evex|avx512)")
families = {m.group(1) for m in map(variant.match, chosen) if m}
for name in known:
    m = variant.match(name)
    if m and m.group(1) in families:
        chosen.add(name)

# One name per function: ICF-folded copies share an address, and any of their names places it.
by_address = {}
for address, size, name in functions:
    if name in chosen and size:
        by_address.setdefault(address, []).append(name)
for names_here in by_address.values():
    chosen.difference_update(sorted(set(names_here))[1:])

# Swift.o's functions without their own section share one, found in the binary from where one
# of its global functions landed. A single name places all of it (a section goes where its
# first listed name is), after the rest. Local names of it that other objects' functions share
# (__swift_memcpy1_1) go there too, or they would place it early.
lines = open(work + "/unmovable").read().splitlines()
text_size, swift = int(lines[0], 16), {}
for line in lines[1:]:
    value, bind, name = line.split()
    swift[name] = (int(value, 16), bind)
where = {}
for address, size, name in functions:
    where.setdefault(name, []).append(address)
bases = [where[n][0] - v for n, (v, b) in swift.items() if b == "GLOBAL" and len(where.get(n, [])) == 1]
base = max(set(bases), key=bases.count) if bases else -1
last, anchor = [], None
for name in sorted(chosen):
    if any(base <= a < base + text_size for a in where[name]):
        chosen.discard(name)
        if name in swift and swift[name][1] == "LOCAL" and len(where[name]) > 1:
            last.append(name)
        elif anchor is None:
            anchor = name
last += [anchor] if anchor else []

with open(out, "w") as file:
    for name in sorted(chosen) + last:
        file.write(name + "\n")
print(f"{out}: {len(chosen) + len(last)} symbols")
PYTHON
