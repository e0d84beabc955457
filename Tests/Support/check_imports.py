#!/usr/bin/env python3
"""Every module a target imports is declared in Package.swift as that target's dependency.

SwiftPM lets a target import a module that only reaches it through another dependency; the build then depends on
an order nobody wrote down, and a reader of Package.swift does not see the real graph. This check reads the
manifest (`swift package dump-package`) and each target's `import` lines, and prints every undeclared import.
Platform modules (Foundation, Glibc, Testing, …) and imports inside `#if canImport(...)` of Apple-only modules are
not counted. Exits 1 when anything is undeclared. Run from the repository root (make test runs it).
"""
import json
import pathlib
import re
import subprocess
import sys

PLATFORM = {
    "Foundation", "FoundationNetworking", "FoundationEssentials", "Testing", "XCTest", "Synchronization", "Glibc",
    "Musl", "Darwin", "Dispatch", "_Concurrency", "Security",
}
IMPORT = re.compile(
    r"^\s*(?:@testable\s+|@_implementationOnly\s+|(?:internal|public|package|private|fileprivate)\s+)*"
    r"import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)(?:\.\w+)*"
    r"\s*(?://.*)?$")


def main():
    manifest = json.loads(subprocess.run(
        ["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
    problems = []
    for target in manifest["targets"]:
        if target["type"] in ("system", "binary", "plugin"):
            continue
        name = target["name"]
        declared = {value[0] for dependency in target["dependencies"] for value in dependency.values()}
        root = pathlib.Path(target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + name)
        for source in sorted(root.rglob("*.swift")):
            for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
                match = IMPORT.match(line)
                if not match:
                    continue
                module = match.group(1)
                if module in PLATFORM or module == name.replace("-", "_") or module in declared:
                    continue
                problems.append(f"{source}:{number}: {name} imports {module}, which Package.swift does not list "
                                f"among its dependencies")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"check_imports: {len(manifest['targets'])} targets, {len(problems)} undeclared imports")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
