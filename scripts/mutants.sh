#!/usr/bin/env bash
# Mutation testing by hand-written mutations of the rules: each entry of
# scripts/mutations.toml changes one rule in one place; the script applies it, runs the
# tests named beside it, restores the file, and reports whether a test failed (the mutant
# is killed) or none did (it survived). Run it before closing a rules change:
#
#   scripts/mutants.sh                 # every mutation
#   scripts/mutants.sh --list          # their names
#   scripts/mutants.sh banner tie      # only those whose name contains all the words
#
# It needs python3 (3.11 or newer, for tomllib) and a built test profile is reused. The
# file is always restored, also on Ctrl-C. Exit code 0 when every mutant is killed, 1 when
# one survived, 2 on a malformed mutation (its text not found exactly once).
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import subprocess, sys, time, tomllib, pathlib, signal

args = sys.argv[1:]
entries = tomllib.loads(pathlib.Path("scripts/mutations.toml").read_text())["mutation"]
if args[:1] == ["--list"]:
    for e in entries:
        print(e["name"])
    sys.exit(0)
words = [w.lower() for w in args]
chosen = [e for e in entries if all(w in e["name"].lower() for w in words)]
if not chosen:
    print(f"no mutation's name contains {' '.join(args)}", file=sys.stderr)
    sys.exit(2)

original = {}
# A mutant that fails a property test makes proptest save the failing case beside the test
# (tests/*/*.proptest-regressions); those files are put back too, so a mutation run leaves
# no trace in the tree.
for f in pathlib.Path("tests").glob("*/*.proptest-regressions"):
    original[str(f)] = f.read_text()
def restore(*_):
    for path, text in original.items():
        pathlib.Path(path).write_text(text)
    for f in pathlib.Path("tests").glob("*/*.proptest-regressions"):
        if str(f) not in original:
            f.unlink()
signal.signal(signal.SIGINT, lambda *a: (restore(), sys.exit(130)))

results = []
for e in chosen:
    path = pathlib.Path(e["file"])
    text = path.read_text()
    n = text.count(e["from"])
    if n != 1:
        print(f"error: mutation '{e['name']}': its text occurs {n} times in {path}, not once", file=sys.stderr)
        restore()
        sys.exit(2)
    original[str(path)] = text
    path.write_text(text.replace(e["from"], e["to"]))
    started = time.time()
    try:
        cmd = ["cargo", "test", "-q", *e["tests"]]
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    finally:
        restore()
    if "error[E" in run.stdout or "could not compile" in run.stdout:
        verdict = "DOES NOT BUILD"
    else:
        verdict = "killed" if run.returncode != 0 else "SURVIVED"
    failed = [l.split()[1] for l in run.stdout.splitlines() if l.startswith("---- ") and l.endswith(" stdout ----")]
    results.append((e["name"], verdict, failed, time.time() - started))
    print(f"{verdict:15} {e['name']}  ({time.time() - started:.0f} s){'; failed: ' + ', '.join(failed[:4]) if failed else ''}", flush=True)

survivors = [r for r in results if r[1] != "killed"]
print(f"\n{len(results) - len(survivors)} of {len(results)} mutants killed")
for name, verdict, _, _ in survivors:
    print(f"  {verdict}: {name}")
sys.exit(1 if survivors else 0)
PY
