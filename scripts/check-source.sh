#!/usr/bin/env bash
# Source hygiene checks, run by .ci/run (through scripts/lint.sh) before the build. Prints one
# line per violation as `path:line: message`, then a summary, and exits 1 if there was any.
#
#   length   a .swift file under Sources/, Tests/ (but not Tests/Fuzz/corpus) or Benchmarks/
#            over 400 lines;
#   body     a func, init, deinit, subscript or computed var (or property observers) whose
#            declaration line through closing brace is over 80 lines;
#   layer    a file in a layer folder of Sources/Fastget naming, as a whole word outside comments
#            and string literals, a type declared at top level in a higher layer folder. Layers,
#            lowest first: Posix TLS HTTP Model Engine Storage API. `extension X` declares nothing;
#   import   Glibc or CLinux imported in Sources/Fastget outside Posix/, COpenSSL outside TLS/.
#
# Sources/Fastget/Testing/ (test hooks, on their way out) is exempt from every check. A file in
# Sources/Fastget outside the layer folders is reported, since the layer check cannot place it.
# Comments and string literals (including """ and #"raw"# strings, but not the code inside their
# \( ) interpolations) are blanked before braces are counted or names matched.
#
# Usage: scripts/check-source.sh [ROOT]   (ROOT defaults to the repository this script is in)
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
exec python3 - "$root" <<'PYTHON'
import os
import re
import sys

MAX_FILE_LINES = 400
MAX_BODY_LINES = 80
LAYERS = ["Posix", "TLS", "HTTP", "Model", "Engine", "Storage", "API"]
EXEMPT = ["Sources/Fastget/Testing/"]
LIBRARY = "Sources/Fastget/"
# Module -> the one library folder that may import it.
IMPORT_HOME = {"Glibc": "Posix", "CLinux": "Posix", "COpenSSL": "TLS"}


def blank(source):
    """The source with comments and string-literal contents replaced by spaces (newlines kept),
    so that braces, keywords and names can be found with plain scanning. The code inside string
    interpolations is kept. Swift's nested /* */ comments, multi-line and raw strings are handled."""
    out = list(source)
    n = len(source)
    # Contexts: ("code", open_parens) for the file or an interpolation, ("string", hashes, multi).
    stack = [("code", 0)]
    i = 0

    def mask(start, end):
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        top = stack[-1]
        c = source[i]
        if top[0] == "code":
            if source.startswith("//", i):
                end = source.find("\n", i)
                end = n if end < 0 else end
                mask(i, end)
                i = end
            elif source.startswith("/*", i):
                depth, k = 1, i + 2
                while k < n and depth:
                    if source.startswith("/*", k):
                        depth, k = depth + 1, k + 2
                    elif source.startswith("*/", k):
                        depth, k = depth - 1, k + 2
                    else:
                        k += 1
                mask(i, k)
                i = k
            elif c == '"' or (c == "#" and re.match(r'#+"', source[i:i + 64])):
                hashes = len(source[i:]) - len(source[i:].lstrip("#"))
                k = i + hashes
                multi = source.startswith('"""', k)
                k += 3 if multi else 1
                stack.append(("string", hashes, multi))
                i = k
            elif c == "(" and len(stack) > 1:
                stack[-1] = ("code", top[1] + 1)
                i += 1
            elif c == ")" and len(stack) > 1:
                if top[1] == 0:  # the interpolation ends; back in its string
                    stack.pop()
                else:
                    stack[-1] = ("code", top[1] - 1)
                i += 1
            else:
                i += 1
        else:
            _, hashes, multi = top
            escape = "\\" + "#" * hashes
            close = ('"""' if multi else '"') + "#" * hashes
            if source.startswith(escape, i):
                k = i + len(escape)
                if k < n and source[k] == "(":
                    mask(i, k + 1)
                    stack.append(("code", 0))
                    i = k + 1
                else:
                    mask(i, k + 1)
                    i = k + 1
            elif source.startswith(close, i):
                stack.pop()
                i += len(close)
            elif c == "\n" and not multi:  # unterminated: do not let it swallow the file
                stack.pop()
                i += 1
            else:
                mask(i, i + 1)
                i += 1
    return "".join(out)


class Report:
    def __init__(self):
        self.violations = {}

    def add(self, kind, path, line, message):
        self.violations.setdefault(kind, []).append((path, line, message))

    def finish(self, files):
        every = sorted(v for found in self.violations.values() for v in found)
        for path, line, message in every:
            print(f"{path}:{line}: {message}")
        counts = ", ".join(f"{kind} {len(self.violations.get(kind, []))}"
                           for kind in ("length", "body", "layer", "import", "parse"))
        verdict = "FAILED" if every else "ok"
        print(f"check-source: {verdict}: {len(every)} violation(s) in {files} files ({counts})")
        return 1 if every else 0


def swift_files(root):
    for top in ("Sources", "Tests", "Benchmarks"):
        for directory, subdirectories, names in os.walk(os.path.join(root, top)):
            relative = os.path.relpath(directory, root).replace(os.sep, "/")
            if relative == "Tests/Fuzz/corpus" or relative.startswith("Tests/Fuzz/corpus/"):
                subdirectories[:] = []
                continue
            subdirectories.sort()
            for name in sorted(names):
                if name.endswith(".swift"):
                    path = f"{relative}/{name}"
                    if not any(path.startswith(prefix) for prefix in EXEMPT):
                        yield path


def line_of(text, offset, starts):
    """1-based line number of offset, given the sorted offsets at which lines start."""
    lo, hi = 0, len(starts)
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid
    return lo + 1


BODY_DECLARATION = re.compile(r"\b(func|init|deinit|subscript|var)\b")
# What may stand before a `var` that declares a property (and not `for var`, `if var`, `case var`).
VAR_PREFIX = re.compile(r"^\s*((@\w+(\([^)]*\))?|public|internal|private|fileprivate|package|open"
                        r"|static|class|final|override|lazy|weak|unowned|nonisolated|dynamic"
                        r"|(private|fileprivate|internal|public|package)\(set\))\s+)*$")
STOP_WORDS = re.compile(r"\b(func|init|deinit|subscript|var|let|case|struct|class|enum|protocol"
                        r"|actor|extension|typealias|associatedtype)\b")


def check_bodies(path, code, starts, report):
    """Reports declarations with a body over MAX_BODY_LINES. The body is the first `{` after the
    declaration keyword outside parentheses and brackets (for a `var`, on the same line); a
    requirement without a body (protocols) ends at the next declaration or the enclosing `}`."""
    matching = {}
    opened = []
    for offset, c in enumerate(code):
        if c == "{":
            opened.append(offset)
        elif c == "}" and opened:
            matching[opened.pop()] = offset
    for match in BODY_DECLARATION.finditer(code):
        keyword, at = match.group(1), match.start()
        before = code[:at].rstrip()
        if before.endswith("."):  # self.init(...), Foo.init, .var
            continue
        after = code[match.end():match.end() + 1]
        if keyword == "init" and after not in ("(", "?", "!", "<"):
            continue
        if keyword == "var":
            line_start = code.rfind("\n", 0, at) + 1
            if not VAR_PREFIX.match(code[line_start:at]):
                continue
        depth, k = 0, match.end()
        body = None
        while k < len(code):
            c = code[k]
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif depth == 0 and c == "{":
                body = k
                break
            elif depth == 0 and (c in "}=;" or STOP_WORDS.match(code, k) and code[k - 1] in " \t\n"):
                break  # no body: a requirement, a stored or initialised property
            elif depth == 0 and c == "\n" and keyword == "var":
                break  # a computed property's `{` is on the line of its `var`
            k += 1
        if body is None or body not in matching:
            continue
        first = line_of(code, at, starts)
        last = line_of(code, matching[body], starts)
        if last - first + 1 > MAX_BODY_LINES:
            name = re.match(r"\s*(`?[\w$]+`?|[^\s(<]+)?", code[match.end():]).group(1) or ""
            what = keyword if keyword in ("init", "deinit", "subscript") else f"{keyword} {name}"
            report.add("body", path, first, f"{what} is {last - first + 1} lines long "
                       f"(limit {MAX_BODY_LINES}, through line {last})")


TYPE_DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+|(?:public|internal|private|fileprivate|package|open|final"
    r"|indirect|nonisolated|distributed)\s+)*"
    r"(?:struct|class|enum|protocol|actor|typealias)\s+`?(\w+)")


def top_level_types(code):
    """Names of the types declared at brace depth 0 (nested types and extensions are skipped)."""
    names = []
    depth = 0
    for line in code.split("\n"):
        if depth == 0:
            match = TYPE_DECLARATION.match(line.strip())
            if match:
                names.append(match.group(1))
        depth += line.count("{") - line.count("}")
    return names


IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|internal|private|fileprivate|package)\s+)?import\s+"
                    r"(?:(?:struct|class|enum|protocol|typealias|func|let|var)\s+)?(\w+)")


def main(root):
    report = Report()
    files = list(swift_files(root))
    blanked = {}
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as handle:
            source = handle.read()
        lines = source.count("\n") + (0 if source.endswith("\n") or not source else 1)
        if lines > MAX_FILE_LINES:
            report.add("length", path, MAX_FILE_LINES + 1,
                       f"file is {lines} lines long (limit {MAX_FILE_LINES}): split it by topic")
        code = blank(source)
        blanked[path] = code
        if code.count("{") != code.count("}"):
            report.add("parse", path, 1, "braces do not balance outside comments and strings (#if branches?): "
                       "its body lengths cannot be trusted")
        starts = [0] + [m.end() for m in re.finditer("\n", code)]
        check_bodies(path, code, starts, report)

    # Layers and imports, library only.
    layer_of = {}
    for path in files:
        if path.startswith(LIBRARY):
            folder = path[len(LIBRARY):].split("/")[0]
            if folder in LAYERS and "/" in path[len(LIBRARY):]:
                layer_of[path] = LAYERS.index(folder)
            else:
                report.add("layer", path, 1, "not in a layer folder of Sources/Fastget "
                           f"({', '.join(LAYERS)})")
    declared = {}  # type name -> (layer, path)
    for path, layer in layer_of.items():
        for name in top_level_types(blanked[path]):
            declared.setdefault(name, (layer, path))
    by_layer = {}
    for name, (layer, path) in declared.items():
        by_layer.setdefault(layer, []).append(name)
    for path, layer in sorted(layer_of.items()):
        code = blanked[path]
        higher = sorted(n for l, names in by_layer.items() if l > layer for n in names)
        if higher:
            pattern = re.compile(r"(?<![\w$])(" + "|".join(map(re.escape, higher)) + r")(?![\w$])")
            for number, line in enumerate(code.split("\n"), 1):
                for name in sorted(set(pattern.findall(line))):
                    higher_layer, home = declared[name]
                    report.add("layer", path, number,
                               f"{LAYERS[layer]} names {name}, a type of the higher layer "
                               f"{LAYERS[higher_layer]} ({home})")
        for number, line in enumerate(code.split("\n"), 1):
            match = IMPORT.match(line)
            if match and match.group(1) in IMPORT_HOME and IMPORT_HOME[match.group(1)] != LAYERS[layer]:
                report.add("import", path, number, f"imports {match.group(1)}, which only "
                           f"{LIBRARY}{IMPORT_HOME[match.group(1)]}/ may import")
    return report.finish(len(files))


sys.exit(main(sys.argv[1]))
PYTHON
