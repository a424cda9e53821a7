#!/usr/bin/env bash
# Regenerates the chart gallery: docs/gallery.md and docs/gallery/*.png, one chart of each
# kind the reports draw, each from a bundled example, so a reader (or a reviewer) sees every
# kind in one place. Run it after changing a chart:
#
#   scripts/gallery.sh                       # builds and runs charioteer with `cargo run`
#   CHARIOTEER=target/release/charioteer scripts/gallery.sh
#
# The runs use fixed seeds (the examples') and 200,000 trials, so the pictures change only
# when the charts or the rules do.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -n "${CHARIOTEER:-}" ]]; then
  bin=("$CHARIOTEER")
else
  cargo build --quiet
  bin=(cargo run --quiet --)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=docs/gallery
mkdir -p "$out"
rm -f "$out"/*.png

trials=200000
m=scenarios/mesbg
b=scenarios/battlesystem
run() { "${bin[@]}" "$@" --quiet >/dev/null; }

run run "$m/khandish-vs-minas-tirith.toml" --trials "$trials" --out "$work/charge"
run run "$m/turn-three-khandish-into-shield-wall.toml" --trials "$trials" --out "$work/turn"
run run "$m/king-on-chariot-vs-cave-trolls.toml" --trials "$trials" --out "$work/hero"
run run "$b/elephant-howdah-vs-pikemen.toml" --trials "$trials" --out "$work/platform"
run run "$b/routing-elephants-in-battle-line.toml" --trials "$trials" --out "$work/rout"
run run "$m/khandish-vs-minas-tirith.toml" "$m/wood-into-shield-wall.toml" --trials "$trials" --out "$work/side"
run compare "$m/khandish-vs-minas-tirith.toml" --set chariot.impact.strength=5 --trials "$trials" --out "$work/paired"
run sweep "$m/khandish-vs-minas-tirith.toml" --set chariot.impact.strength=3..6 --trials "$trials" --out "$work/sweep"
run balance "$m/khandish-vs-minas-tirith.toml" --against "$m/iron-hills-into-pike-block.toml" \
  --matchups scenarios/matchups/mesbg-lines.toml --trials "$trials" --out "$work/price"
run balance "$m/khandish-vs-minas-tirith.toml" --against "$m/iron-hills-into-pike-block.toml" \
  --matchups scenarios/matchups/mesbg-lines.toml --set chariot.impact.hits=1,2,D3,D3+1 --trials "$trials" --out "$work/cost"

# gallery name | file made above | what it shows | the command behind it
entries=(
  "board.png|charge/board.png|The board to scale: each base shaded by its chance to be slain, the chariot's start, swept path and pivots, and where charges ended.|charioteer run scenarios/mesbg/khandish-vs-minas-tirith.toml"
  "board-turn.png|turn/board.png|A turn of three chariots: every path numbered, each model's chance to be slain over the whole turn.|charioteer run scenarios/mesbg/turn-three-khandish-into-shield-wall.toml"
  "how-charges-end.png|charge/how-charges-end.png|How the charges ended, every charge in one bar: broke through, won the fight, did not win it, the chariot slain, or no fight because all it touched were slain; 95% intervals and the exact chances marked.|charioteer run (the default example)"
  "how-charges-end-turn.png|turn/how-charges-end.png|In a turn, how each chariot's charge ended, a group of bars per chariot: the middle chariot, facing the Captain and the banner, mostly loses its fight.|charioteer run scenarios/mesbg/turn-three-khandish-into-shield-wall.toml"
  "impact-chain.png|charge/impact-chain.png|The impact chain: the chance of reaching each contact group and of being stopped there, with the exact stopping chance marked.|charioteer run (the default example)"
  "distribution.png|charge/distribution-kills.png|A count's distribution: P(kills = k) with 95% whiskers.|charioteer run (the default example)"
  "at-least.png|charge/at-least-kills.png|The same count as P(kills >= k) with its Wilson band: the chance of doing at least so much.|charioteer run (the default example)"
  "wound-split.png|hero/wound-split.png|With a Hero riding: how Wounds split between the chariot and him, as a joint distribution.|charioteer run scenarios/mesbg/king-on-chariot-vs-cave-trolls.toml"
  "board-map-charge.png|platform/board-map.png|A BATTLESYSTEM charge on its board: the units as blocks, the charge's line.|charioteer run scenarios/battlesystem/elephant-howdah-vs-pikemen.toml"
  "board-map-rout.png|rout/board-map.png|A rout: where the routing beasts' centre went, cell by cell, over every trial.|charioteer run scenarios/battlesystem/routing-elephants-in-battle-line.toml"
  "units-contacted.png|rout/units-contacted.png|Which units a rout strikes, with 95% whiskers.|charioteer run scenarios/battlesystem/routing-elephants-in-battle-line.toml"
  "comparison.png|side/comparison/comparison-kills.png|Several scenarios side by side: one metric's mean and interval for each.|charioteer run scenarios/mesbg/khandish-vs-minas-tirith.toml scenarios/mesbg/wood-into-shield-wall.toml"
  "difference-chances.png|paired/difference-chances.png|A paired comparison on common random numbers: what B changes, each chance's difference B - A with its 95% interval (B here is A with Impact Strength 5, named so above the chart; a gain for B points right).|charioteer compare scenarios/mesbg/khandish-vs-minas-tirith.toml --set chariot.impact.strength=5"
  "difference-counts.png|paired/difference-counts.png|The same for counts.|charioteer compare scenarios/mesbg/khandish-vs-minas-tirith.toml --set chariot.impact.strength=5"
  "sweep.png|sweep/sweep-kills.png|A sweep: a metric against the swept field, with its band.|charioteer sweep scenarios/mesbg/khandish-vs-minas-tirith.toml --set chariot.impact.strength=3..6"
  "matchup-prices.png|price/matchup-prices.png|A price a designer can defend: the Khandish chariot priced against the Iron Hills chariot on every line of the bundled matchup set, like for like. Each dot is the fair price against one line (its 95% sampling whisker is narrower than the dot); the line is the price of the whole field and the band the interval holding both the sampling noise and the spread across lines: the price depends on the opponent far more than on the dice.|charioteer balance scenarios/mesbg/khandish-vs-minas-tirith.toml --against scenarios/mesbg/iron-hills-into-pike-block.toml --matchups scenarios/matchups/mesbg-lines.toml"
  "cost-curve.png|cost/cost-curve.png|A cost curve: the fair price of the Khandish chariot at each number of Impact Hits, every value on the same trials against the same matchup set (dots with 95% sampling whiskers), the band holding the spread across lines, and the price paid now: D3 hits are worth a little less than a flat 2.|charioteer balance scenarios/mesbg/khandish-vs-minas-tirith.toml --against scenarios/mesbg/iron-hills-into-pike-block.toml --matchups scenarios/matchups/mesbg-lines.toml --set chariot.impact.hits=1,2,D3,D3+1"
)

{
  echo "# Chart gallery"
  echo
  echo "One chart of each kind charioteer draws, each from a bundled example (200,000 trials at the"
  echo "example's seed). Regenerated by \`scripts/gallery.sh\`; every report also writes an SVG of each."
  echo "Which charts a report draws, and which it leaves out (a constant, a certainty, a duplicate),"
  echo "is in [json-schema.md](json-schema.md#the-report-folder)."
  for e in "${entries[@]}"; do
    IFS='|' read -r name from what command <<<"$e"
    if [[ ! -f "$work/$from" ]]; then
      echo "scripts/gallery.sh: $from was not drawn; a chart kind changed: update this script" >&2
      exit 1
    fi
    cp "$work/$from" "$out/$name"
    echo
    echo "## ${name%.png}"
    echo
    echo "$what"
    echo
    echo "![$what](gallery/$name)"
    echo
    echo "\`$command\`"
  done
} >docs/gallery.md.tmp
mv docs/gallery.md.tmp docs/gallery.md
echo "docs/gallery.md: ${#entries[@]} charts in $out/"
