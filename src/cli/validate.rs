//! `validate`: check scenario files and say where the chariot may stop and who helps the
//! enemy there.

use super::*;

/// The version of the validation's JSON object (`validate --json`, `validation.json`).
pub(super) const VALIDATE_SCHEMA: &str = "charioteer.validate/1";

pub(super) fn validate(files: &[PathBuf], map: Option<&Path>, output: &OutputOptions) -> Result<()> {
    if let Some(map) = map {
        if files.len() != 1 {
            return Err(UnsupportedRequest(format!(
                "--map draws one board, but {} scenario files were given: validate them one at a time with --map",
                files.len()
            ))
            .into());
        }
        map_format(map)?;
    }
    let mut failed = 0;
    let mut results = Vec::new();
    for file in files {
        let name = file.display().to_string();
        let set_text = std::fs::read_to_string(file).ok().filter(|t| crate::tools::matchups::is_matchup_set(t));
        if let Some(text) = set_text {
            if map.is_some() {
                return Err(UnsupportedRequest(format!(
                    "--map draws a scenario's board, but {name} is a matchup set: its lines are drawn in front of a \
                     piece by `balance PIECE --against REF --matchups {name}`"
                ))
                .into());
            }
            match matchup_set_described(&text, &name) {
                Ok((summary, details, warnings)) => {
                    if !output.json && !output.quiet {
                        out!("{name}: {summary}");
                        for line in &details {
                            out!("  {line}");
                        }
                    }
                    system::print_warnings(&name, &warnings, output.quiet || output.json);
                    results.push(serde_json::json!({
                        "file": name, "ok": true, "system": "matchups",
                        "scenario_hash": format!("{:016x}", crate::input::fnv1a(text.as_bytes())),
                        "summary": summary, "details": details, "problems": [], "warnings": warnings,
                    }));
                }
                Err(e) => {
                    eprintln!("{e}");
                    let problems = match &e {
                        crate::tools::matchups::MatchupError::Invalid { problems, .. } => problems.clone(),
                        other => {
                            vec![scenario::Problem { field: String::new(), line: None, message: other.to_string() }]
                        }
                    };
                    results.push(serde_json::json!({ "file": name, "ok": false, "problems": problems }));
                    failed += 1;
                }
            }
            continue;
        }
        let (summary, details, system, hash, warnings) = match load_any(Some(file)) {
            Ok(loaded) => on_system!(loaded, described(map, output.quiet || output.json))?,
            Err(e) => {
                let problems = match &e {
                    ScenarioError::Invalid { problems, .. } => problems.clone(),
                    ScenarioError::Read { .. } => {
                        vec![scenario::Problem { field: String::new(), line: None, message: e.to_string() }]
                    }
                };
                eprintln!("{e}");
                results.push(serde_json::json!({ "file": name, "ok": false, "problems": problems }));
                failed += 1;
                continue;
            }
        };
        if !output.json && !output.quiet {
            out!("{name}: {summary}");
            for line in &details {
                out!("  {line}");
            }
        }
        system::print_warnings(&name, &warnings, output.quiet || output.json);
        results.push(serde_json::json!({
            "file": name, "ok": true, "system": system, "scenario_hash": format!("{hash:016x}"), "summary": summary,
            "details": details, "problems": [], "warnings": warnings,
        }));
    }
    let value =
        serde_json::json!({ "schema": VALIDATE_SCHEMA, "version": env!("CARGO_PKG_VERSION"), "files": results });
    let text = serde_json::to_string_pretty(&value)?;
    if let Some(dir) = &output.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        report::write_atomic(&dir.join("validation.json"), |f| std::io::Write::write_all(f, text.as_bytes()))?;
    }
    if output.json {
        out!("{text}");
    }
    // Each file's problems were printed above, once; the error only counts them.
    match failed {
        0 => Ok(()),
        invalid => Err(InvalidFiles { invalid, files: files.len() }.into()),
    }
}

/// What `validate` says of a matchup set: a line naming it, one per target line, and its
/// warnings. Each line is placed in front of a bundled piece (the default example's chariot,
/// or for BATTLESYSTEM units the howdah elephant) and read as a scenario, so a wrong profile,
/// an overlapping base or a unit off the board is found here rather than mid-way through a
/// price; a MESBG line the chariot's path does not reach is a warning.
fn matchup_set_described(
    text: &str,
    name: &str,
) -> Result<(String, Vec<String>, Vec<scenario::Problem>), crate::tools::matchups::MatchupError> {
    use crate::tools::matchups::{self, SetSystem};
    let set = matchups::parse(text, name)?;
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let details = match set.system {
        SetSystem::Mesbg => described_lines(
            &set,
            name,
            (scenario::DEFAULT_SCENARIO_NAME, scenario::DEFAULT_SCENARIO),
            |placed| scenario::parse(placed, name).and_then(|s| crate::tools::system::check_turn(&s).map(|()| s)),
            |_, s| {
                let models: usize = s.formations.iter().map(|f| f.centres.len()).sum();
                let groups = s.formations.len();
                let terrain = match s.terrain.len() {
                    0 => String::new(),
                    n => format!(", {n} terrain piece(s)"),
                };
                format!("{models} model{} in {groups} formation{}{terrain}", plural(models), plural(groups))
            },
            |s| crate::mesbg::plan::compile(s).models_on_path() > 0,
        )?,
        SetSystem::Battlesystem => described_lines(
            &set,
            name,
            BATTLESYSTEM_PIECE,
            |placed| crate::battlesystem::scenario::parse(placed, name),
            |line, s| {
                let theirs: Vec<_> =
                    s.units.iter().filter(|u| u.side == crate::battlesystem::scenario::Army::B).collect();
                let figures: u32 = theirs.iter().map(|u| u.figures).sum();
                format!(
                    "{figures} figure{} in {} unit{}, charged: {}",
                    plural(figures as usize),
                    theirs.len(),
                    plural(theirs.len()),
                    line.target.as_deref().unwrap_or("?")
                )
            },
            // A charge target the charging unit cannot reach is refused when read.
            |_| true,
        )?,
    };
    let summary = format!(
        "matchup set \"{}\": {} line{} to price a {} against",
        set.title,
        set.lines.len(),
        plural(set.lines.len()),
        match set.system {
            SetSystem::Mesbg => "MESBG piece",
            SetSystem::Battlesystem => "BATTLESYSTEM charging unit",
        }
    );
    Ok((summary, details.0, details.1))
}

/// The bundled BATTLESYSTEM charge a set's lines are placed in front of when validated.
const BATTLESYSTEM_PIECE: (&str, &str) = (
    "scenarios/battlesystem/elephant-howdah-vs-pikemen.toml",
    include_str!("../../scenarios/battlesystem/elephant-howdah-vs-pikemen.toml"),
);

/// Places every line of `set` in front of `piece` (its name and text), reads it with `read`
/// and describes it with `describe` (after its weight), and warns of a line `reaches` says
/// the piece does not reach; every problem of every line is gathered, named as the set
/// writes it.
fn described_lines<S>(
    set: &crate::tools::matchups::MatchupSet,
    name: &str,
    (piece_name, piece): (&str, &str),
    read: impl Fn(&str) -> Result<S, ScenarioError>,
    describe: impl Fn(&crate::tools::matchups::Line, &S) -> String,
    reaches: impl Fn(&S) -> bool,
) -> Result<(Vec<String>, Vec<scenario::Problem>), crate::tools::matchups::MatchupError> {
    use crate::tools::matchups::{self, MatchupError};
    let total: f64 = set.lines.iter().map(|l| l.weight).sum();
    let (mut details, mut problems, mut warnings) = (Vec::new(), Vec::new(), Vec::new());
    for (k, line) in set.lines.iter().enumerate() {
        let placed = matchups::place(piece, piece_name, set, k)?;
        match read(&placed) {
            Ok(s) => {
                if !reaches(&s) {
                    warnings.push(scenario::Problem {
                        field: format!("lines[{k}]"),
                        line: None,
                        message: format!(
                            "placed in front of {piece_name}, \"{}\" is out of its reach (no model on its path \
                             within its Move): check the line's place (x to the piece's right, y ahead, inches); a \
                             line neither priced piece reaches is left out of a price, and one only the reference \
                             misses has no price of its own",
                            line.name
                        ),
                    });
                }
                details.push(format!(
                    "{}: weight {} ({:.0}% of the price), {}",
                    line.name,
                    line.weight,
                    100.0 * line.weight / total,
                    describe(line, &s)
                ));
            }
            Err(ScenarioError::Invalid { problems: found, .. }) => {
                match matchups::placed_problems(set, k, piece_name, found) {
                    MatchupError::Invalid { problems: found, .. } => problems.extend(found),
                    other => return Err(other),
                }
            }
            Err(other) => problems.push(scenario::Problem {
                field: format!("lines[{k}]"),
                line: None,
                message: other.to_string(),
            }),
        }
    }
    if problems.is_empty() {
        Ok((details, warnings))
    } else {
        Err(MatchupError::Invalid { file: name.to_string(), context: String::new(), problems })
    }
}

/// Whether `--map FILE` asks for a PNG (true) or an SVG (false), by its extension.
fn map_format(map: &Path) -> Result<bool> {
    match map.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("png") => Ok(true),
        Some("svg") => Ok(false),
        _ => Err(UnsupportedRequest(format!(
            "--map {}: the picture is written as PNG or SVG; end the file name in .png or .svg",
            map.display()
        ))
        .into()),
    }
}

/// What `validate` says of a scenario: its line, details, system, hash and warnings.
type Described = (String, Vec<String>, &'static str, u64, Vec<scenario::Problem>);

/// What `validate` says of a scenario of system `S`, after drawing its board to `map` if
/// asked.
fn described<S: System>(scenario: S::Scenario, map: Option<&Path>, quiet: bool) -> Result<Described> {
    let plan = S::compile(&scenario);
    let (summary, details) = S::describe(&scenario, &plan);
    let warnings = S::warnings(&scenario, &plan);
    if let Some(map) = map {
        let rendered = S::board(&scenario, &plan)?;
        let bytes = if map_format(map)? { rendered.png } else { rendered.svg.into_bytes() };
        if let Some(dir) = map.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        report::write_atomic(map, |f| std::io::Write::write_all(f, &bytes))?;
        if !quiet {
            eprintln!("board drawn to {}", map.display());
        }
    }
    Ok((summary, details, <S::Plan as crate::engine::RuleSystem>::SYSTEM, S::facts(&scenario).hash, warnings))
}

/// What helps the enemy at each place the chariot may stop, when every model it touches
/// there survives its Impact Hits: the supporting spears and pikes (by name) and a banner
/// in range. Empty when the scenario has none.
pub(super) fn support_lines(plan: &Plan) -> Vec<String> {
    if !plan.support.any() {
        return Vec::new();
    }
    plan.groups
        .iter()
        .enumerate()
        .map(|(g, group)| {
            let all = vec![plan::support::Presence { in_fight: true, rider: true, prone: false }; group.models.len()];
            let support = plan.foe_support(g, &all);
            let fighting: Vec<String> = group.models.iter().map(|&m| plan.model_label(m)).collect();
            let supporters: Vec<String> = support.supporters.iter().map(|s| plan.model_label(s.model)).collect();
            format!(
                "if it stops at {:.2}\" against {}: {}{}",
                group.distance,
                fighting.join(", "),
                if supporters.is_empty() {
                    "no supporters".to_string()
                } else {
                    format!("supported by {}", supporters.join(", "))
                },
                if support.banner { "; a banner within 3\" (one duel die may be re-rolled)" } else { "" }
            )
        })
        .collect()
}

/// The Monsters that, beaten where the chariot stops against them, could not Back Away
/// (a model or an obstacle 1" behind them) and so would be Trapped.
pub(super) fn trapped_lines(plan: &Plan) -> Vec<String> {
    plan.groups
        .iter()
        .flat_map(|g| g.models.iter().map(move |&m| (g.distance, m)))
        .filter(|&(_, m)| plan.models[m].cannot_back_away)
        .map(|(d, m)| {
            format!(
                "if it stops at {d:.2}\" and wins, {} cannot Back Away (blocked 1\" behind): Trapped, two To Wound rolls per Strike",
                plan.model_label(m)
            )
        })
        .collect()
}
