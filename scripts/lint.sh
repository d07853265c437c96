#!/usr/bin/env bash
# Source checks that fail CI before anything is built (.ci/run calls this first):
#   1. scripts/check-source.sh: file and body lengths, library layering, libc/OpenSSL imports;
#   2. `swift format lint --strict` with .ci/swift-format.json (the toolchain's swift-format).
# Both always run, so one CI log shows every finding. To fix formatting findings:
#   swift format format -i --configuration .ci/swift-format.json -r Sources Tests Benchmarks Package.swift
#
# Why .ci/swift-format.json differs from `swift format dump-configuration` (JSON has no comments):
#   indentation 4, lineLength 150   the code's own indentation; 150 keeps the code's long lines
#                                   (only a few dozen, mostly string literals, are longer, and a
#                                   literal that cannot be broken is not reported) while 140 or
#                                   less rewraps hundreds more lines;
#   indentConditionalCompilationBlocks false   #if bodies are not indented here;
#   spacesBeforeEndOfLineComments 1            `code // comment`, as written throughout;
#   DoNotUseSemicolons, OneVariableDeclarationPerLine off   short statements kept on one line
#                                   (`if x < 0 { x = t; return }`, `let a = 1, b = 2`) on purpose;
#   NoAssignmentInExpressions, NoBlockComments, OnlyOneTrailingClosureArgument,
#   ReplaceForEachWithForLoop, OrderedImports off   deliberate idioms here (inline /* ENOSPC */
#                                   errno names, `.forEach(hub.publish)`, `internal import Glibc`
#                                   after the other imports), and swift-format cannot fix most
#                                   of them by itself;
#   AlwaysUseLiteralForEmptyCollectionInit, NoEmptyLinesOpeningClosingBraces, NoLeadingUnderscores,
#   NeverUseImplicitlyUnwrappedOptionals, OmitExplicitReturns on   the code already follows them.
# The pretty printer (indentation, line breaks, spacing) cannot be configured per rule.
set -uo pipefail
cd "$(dirname "$0")/.."

status=0
scripts/check-source.sh || status=1
if swift format lint --strict --configuration .ci/swift-format.json --recursive \
    Sources Tests Benchmarks Package.swift; then
    echo "swift format lint: ok"
else
    echo "swift format lint: FAILED (fix with: swift format format -i --configuration .ci/swift-format.json" \
        "-r Sources Tests Benchmarks Package.swift)" >&2
    status=1
fi
exit "$status"
