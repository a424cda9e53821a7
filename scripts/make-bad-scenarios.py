#!/usr/bin/env python3
"""Writes the corpus of malformed and hostile scenario files in tests/bad-scenarios/.

Each file starts with `# expect: <substring> | <substring> ...`: what the refusal message
must contain (the test `tests/cli/hardening.rs` runs every file through `charioteer validate`
and `charioteer run`, and requires exit code 2, no panic, no report, and every substring).
For a field mutated on line N of file F, the expectation is `F:N:` and the field's dotted
path, so every message names the line and the field.

Families: every scalar field of a MESBG and a BATTLESYSTEM example set to NaN, infinities,
huge and negative numbers, wrong types (string, array, table, boolean); every line of the
examples deleted (missing required fields, or harmless); unknown fields; absurd counts;
overlapping and off-board units; unknown names; deeply nested junk; huge strings; binary
garbage. Run from the repository root: `python3 scripts/make-bad-scenarios.py`. The
generator keeps only inputs that are actually invalid (a deleted optional line is valid) and
fails loudly if a refusal lacks the line or field, so a weak message cannot slip in.
"""

import os
import re
import subprocess
import sys

OUT = "tests/bad-scenarios"
BIN = os.environ.get("CHARIOTEER", "target/debug/charioteer")
BASES = {
    "mesbg": "scenarios/mesbg/khandish-vs-minas-tirith.toml",
    "bs-charge": "scenarios/battlesystem/elephant-howdah-vs-pikemen.toml",
    "bs-rout": "scenarios/battlesystem/routing-elephants-in-battle-line.toml",
}
BAD_NUMBERS = ["nan", "inf", "-inf", "1e308", "-7", "1_000_000_000_000_000", '"seven"', "[1, 2]", "{ a = 1 }", "true"]
BAD_STRINGS = ["42", '""', "[]", "{ x = 1 }", '"' + "w" * 5000 + '"']


def scalar_lines(text):
    """(line number, dotted path, key, value) of every `key = value` line outside inline tables."""
    path, counts, out = "", {}, []
    for n, line in enumerate(text.split("\n"), 1):
        s = line.split("#", 1)[0].strip() if not line.strip().startswith('"') else line.strip()
        m = re.match(r"^\[\[([\w.]+)\]\]$", s)
        if m:
            counts[m.group(1)] = counts.get(m.group(1), -1) + 1
            path = f"{m.group(1)}[{counts[m.group(1)]}]"
            continue
        m = re.match(r"^\[([\w.]+)\]$", s)
        if m:
            path = m.group(1)
            continue
        m = re.match(r"^([A-Za-z_]+)\s*=\s*(.+)$", s)
        if m:
            key, value = m.group(1), m.group(2)
            out.append((n, f"{path}.{key}" if path else key, key, value))
    return out


def check(name, text, expect, cases):
    cases.append((name, text, expect))


def main():
    cases = []
    for tag, base_path in BASES.items():
        base = open(base_path).read()
        lines = base.split("\n")
        for n, field, key, value in scalar_lines(base):
            if value.startswith("[") and not value.endswith("]"):
                continue  # multi-line arrays
            is_string = value.startswith('"')
            for i, bad in enumerate(BAD_STRINGS if is_string else BAD_NUMBERS):
                if key == "at" and bad == "[1, 2]":
                    continue  # a valid position: whatever it breaks is named elsewhere
                mutated = list(lines)
                mutated[n - 1] = f"{key} = {bad}"
                check(f"{tag}-{field}-{i}", "\n".join(mutated), [f":{n + 1}:", field], cases)
            # An unknown field beside it.
            mutated = list(lines)
            mutated.insert(n, f"{key}_typo = 1")
            check(f"{tag}-{field}-unknown", "\n".join(mutated), [f":{n + 2}:", "unknown field"], cases)
        for n, line in enumerate(lines, 1):
            if not line.strip() or line.strip().startswith("#"):
                continue
            mutated = lines[: n - 1] + lines[n:]
            check(f"{tag}-deleted-line-{n:03}", "\n".join(mutated), ["is not a valid scenario"], cases)
    mesbg = open(BASES["mesbg"]).read()
    charge = open(BASES["bs-charge"]).read()
    rout = open(BASES["bs-rout"]).read()
    specials = [
        ("absurd-model-count", mesbg.replace("count = 12", "count = 1000000000000"), ["formations[0].count", "allowed"]),
        ("absurd-trials", mesbg.replace("trials = 1_000_000", "trials = 10_000_000_000_000"), ["trials", "allowed 1 to"]),
        ("unknown-profile", mesbg.replace('name = "Khandish Charioteer"', 'profile = "Khandish War Wagon"'), ["chariot.profile", "no chariot profile"]),
        ("unknown-system", mesbg.replace('system = "mesbg"', 'system = "warhammer"'), ["system", "unknown system"]),
        ("overlapping-models", mesbg.replace("front_centre = [0.0, 6.0]", "front_centre = [0.0, 0.5]"), ["formations[0]", "overlap"]),
        ("bs-overlapping-units", rout.replace("at = [21.0, 16.0]", "at = [27.0, 16.0]"), ["units[1].at", "overlaps"]),
        ("bs-off-board", rout.replace("at = [39.0, 16.0]", "at = [58.0, 16.0]"), ["units[2].at", "board"]),
        ("bs-unknown-rout-unit", rout.replace('unit = "Elephants"', 'unit = "Mumakil"'), ["rout.unit", "no unit is named"]),
        ("bs-no-rider", charge.replace('{ name = "Mahout", role = "rider", ad = "d4", ar = 8 },', ""), ["units[0].crew", "rider"]),
        ("bs-target-out-of-reach", charge.replace("at = [24.0, 26.0]", "at = [24.0, 40.0]"), ["charge.target", "beyond its MV"]),
        ("bs-friendly-target", charge.replace('side = "b"', 'side = "a"'), ["charge.target", "charger's side"]),
        ("bs-charge-and-rout", charge + '\n[rout]\nunit = "War elephant"\n', ["rout", "not both"]),
        ("bs-too-many-units", rout + "".join(f'\n[[units]]\nname = "Extra {i}"\nside = "b"\nfigures = 1\nat = [{2 + 3 * i}.0, 45.0]\nstats = {{ ad = "d6", ar = 7, hits = 1, ml = 12, mv = 6 }}\n' for i in range(12)), ["units", "at most 16"]),
        ("bs-figures-absurd", rout.replace("figures = 30", "figures = 1000000000000"), ["units[4].figures", "allowed 1 to 48"]),
        ("bs-hits-table-descending", charge.replace("[board]", "[rules]\nhits_table = [[1, 0], [5, 2], [9, 1]]\n\n[board]"), ["rules.hits_table[2]", "bands must go up"]),
        ("bs-bad-die", charge.replace('ad = "d12"', 'ad = "d20"'), ["units[0].stats.ad", "not an attack die"]),
        ("deeply-nested-arrays", mesbg + "\njunk = " + "[" * 3000 + "]" * 3000 + "\n", ["recursion"]),
        ("deeply-nested-tables", mesbg + "\njunk = " + "{ a = " * 2000 + "1" + " }" * 2000 + "\n", ["recursion"]),
        ("huge-title", mesbg.replace('title = "Khandish charioteer charges a Minas Tirith shield wall"', 'title = "' + "T" * 10000 + '"'), [":2:", "title", "1 to 200 characters"]),
        ("empty-file", "", ["missing field"]),
        ("not-toml", "this is not a scenario\n", [":2:", "expected"]),
        ("duplicate-key", mesbg.replace("fight = 4\n", "fight = 4\nfight = 5\n", 1), [":13:", "duplicate key"]),
        # The TOML parser reports an unclosed string where it gives up (a later line), not
        # where the quote is missing; the message still says what is wrong.
        ("unclosed-string", mesbg.replace('courage = "7+"', 'courage = "7+'), ["unclosed"]),
        ("pivot-too-large", mesbg.replace("pivots = [0, 0]", "pivots = [60, 0]"), ["charge.pivots[0]", "allowed -45 to 45"]),
        ("nan-in-array", mesbg.replace("at = [0.0, 0.0]", "at = [nan, 0.0]"), ["chariot.at", "finite"]),
        ("inf-in-array", mesbg.replace("front_centre = [0.0, 6.0]", "front_centre = [0.0, inf]"), ["formations[0].front_centre", "finite"]),
        ("bs-nan-facing", rout.replace("facing = 180\nat = [30.0, 27.0]", "facing = nan\nat = [30.0, 27.0]"), ["units[4].facing", "finite"]),
        ("bs-range-band-reversed", charge.replace("[[0, 7, 1.0], [7, 14, 0.5]]", "[[7, 0, 1.0]]"), ["range_bands[0]", "to above from"]),
    ]
    for name, text, expect in specials:
        check(name, text, expect, cases)
    kept, problems = [], []
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        if old.endswith(".toml") or old.endswith(".bin"):
            os.remove(os.path.join(OUT, old))
    for i, (name, text, expect) in enumerate(cases):
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name)[:80]
        file = f"{i:04}-{safe}.toml"
        header = "# expect: " + " | ".join(e.replace("|", "/") for e in expect) + "\n"
        body = header + text
        path = os.path.join(OUT, file)
        open(path, "w").write(body)
        r = subprocess.run([BIN, "validate", path], capture_output=True, text=True)
        if r.returncode == 0:
            os.remove(path)  # a valid variation (an optional line deleted, say): not a bad file
            continue
        missing = [e for e in expect if e not in r.stderr]
        if r.returncode != 2 or "panicked" in r.stderr or missing:
            problems.append((file, r.returncode, missing, r.stderr[:400]))
        kept.append(file)
    # Binary garbage: not UTF-8.
    path = os.path.join(OUT, "9999-binary-garbage.toml")
    open(path, "wb").write(b"# expect: not UTF-8\n" + bytes(range(256)) * 4)
    kept.append(path)
    print(f"{len(kept)} bad scenario files in {OUT}")
    for p in problems:
        print("PROBLEM", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
