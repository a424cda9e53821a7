//! The balance procedure: a piece priced against its references, a target efficiency, or
//! one reference across a matchup set, and a cost curve along one changed field. The
//! command line (`charioteer balance`) and anything else that prices (the server, scripts)
//! call [`balance`] with a [`BalanceRequest`] and a [`Player`], and only write and print
//! what it returns.

use super::{
    BalanceError, BalanceRun, CostCurve, FairPrice, LeftOut, LineWorth, MAX_CURVE_POINTS, Matchup, Pricing, SplitKind,
    Spread, ValueModel,
};
use crate::battlesystem::scenario::{Action, BattlesystemScenario, Unit};
use crate::engine::{RuleSystem, Streams, TrialRange};
use crate::mesbg::scenario::{self, Base, Scenario, ScenarioError};
use crate::tools::paired::PairedSums;
use crate::tools::play::{Player, ToolError};
use crate::tools::system::{self, Game, Loaded, load_file, load_text, on_system, shell_quote};
use std::path::{Path, PathBuf};

/// What to price and how, as `charioteer balance` takes it.
#[derive(Clone, Debug, Default)]
pub struct BalanceRequest {
    /// The scenario priced.
    pub file: PathBuf,
    /// The field holding its price (default: its system's).
    pub price: Option<String>,
    /// The reference scenarios whose efficiency the price matches.
    pub against: Vec<PathBuf>,
    /// What a trial is worth.
    pub value: ValueModel,
    /// The references' weights in the overall, in `against` order (empty: equal).
    pub weights: Vec<f64>,
    /// An efficiency to match instead of references.
    pub target_efficiency: Option<f64>,
    /// A matchup set both the piece and its one reference charge, line by line.
    pub matchups: Option<PathBuf>,
    /// Changes to the priced piece as `PATH=VALUES`; several values of one field draw a
    /// cost curve.
    pub sets: Vec<String>,
    /// The seed (default: the priced scenario's).
    pub seed: Option<u64>,
    /// The trials (default: the priced scenario's).
    pub trials: Option<u64>,
}

/// A finished balance, with the name of its report folder under reports/.
pub enum Balanced {
    /// One price (the file, or the file with one value of each `--set` field).
    One {
        /// The price.
        run: Box<BalanceRun>,
        /// Its folder name, `balance--<slug>`.
        folder: String,
    },
    /// The price at each value of the one field that takes several.
    Curve {
        /// The prices along the field.
        curve: CostCurve,
        /// Its folder name, `balance--<slug>--<field>`.
        folder: String,
    },
}

/// Prices the request's piece (a cost curve when a `--set` field takes several values).
pub fn balance(req: &BalanceRequest, player: &Player) -> Result<Balanced, ToolError> {
    let base = scenario::read(&req.file)?;
    let name = req.file.display().to_string();
    let unpriced = leaves_out(req);
    if req.sets.is_empty() {
        let piece = Piece { text: base.clone(), name, base, changes: Vec::new() };
        let (mut run, folder) = price(req, &piece, None, player)?;
        run.leaves_out = unpriced;
        return Ok(Balanced::One { run: Box::new(run), folder });
    }
    let mut curve = cost_curve(req, base, name, player)?;
    if let Balanced::Curve { curve, .. } = &mut curve {
        for (_, run) in &mut curve.points {
            run.leaves_out = unpriced.clone();
        }
    }
    Ok(curve)
}

/// What the price does not count, for the priced piece and each reference: the wargear,
/// options and special rules of each MESBG chariot and rider that the engine does not play
/// (read from the profile library by name: a bow, a bolt thrower, a special rule), each as
/// `(piece, what)`. Shooting, later turns and what a Hero does off the chariot are left out
/// for every piece and said by the report.
fn leaves_out(req: &BalanceRequest) -> Vec<(String, String)> {
    let library = crate::mesbg::scenario::bundled_library_profiles();
    let mut out = Vec::new();
    for file in std::iter::once(&req.file).chain(&req.against) {
        let Ok(Loaded::Mesbg(s) | Loaded::Turn(s)) = load_file(Some(file)) else { continue };
        let riders = std::iter::once(&s.chariot).chain(s.more.iter().map(|e| &e.chariot)).flat_map(|c| {
            std::iter::once(("chariots", c.name.clone())).chain(c.hero.iter().map(|h| ("heroes", h.name.clone())))
        });
        for (kind, name) in riders {
            let Some(profile) = library.iter().find(|p| p.kind == kind && p.name == name) else { continue };
            for item in &profile.not_modelled {
                let entry = (name.clone(), item.clone());
                if !out.contains(&entry) {
                    out.push(entry);
                }
            }
        }
    }
    out
}

/// The priced piece: the file's text, or that text with `--set` changes.
struct Piece {
    /// The scenario text priced.
    text: String,
    /// Its name in messages: the file, and the changes when there are any.
    name: String,
    /// The file's own text: the streams are keyed by it, so every `--set` value plays the
    /// trials the file itself plays (common random numbers along a cost curve).
    base: String,
    /// The changes as `PATH=VALUE`, for titles and the reproduce command.
    changes: Vec<String>,
}

impl Piece {
    /// ` --set 'PATH=VALUE'` for each change, for a reproduce command.
    fn set_args(&self) -> String {
        self.changes.iter().map(|c| format!(" --set {}", shell_quote(c))).collect()
    }

    /// `title`, followed by the changes when there are any.
    fn titled(&self, title: &str) -> String {
        if self.changes.is_empty() { title.to_string() } else { format!("{title}, with {}", self.changes.join(", ")) }
    }

    /// The key of the streams for a scenario made from this piece by `make` (the piece
    /// itself, or placed in front of a line): the same scenario made from the file's own
    /// text, so a changed piece plays the file's trials.
    fn stream_key(&self, own: u64, make: impl Fn(&str) -> Result<u64, ToolError>) -> Result<u64, ToolError> {
        if self.text == self.base { Ok(own) } else { make(&self.base) }
    }
}

/// What a balance needs from each scenario, whichever rule system it is.
struct Priced<P> {
    title: String,
    slug: String,
    ruleset: Vec<crate::input::RuleOption>,
    plan: P,
    pricing: Pricing,
    hash: u64,
    seed: u64,
    trials: u64,
}

/// Compiles and prices a scenario of system `S` (`price`: the field, or the system's
/// default when `None`).
fn priced<S: Game>(s: &S::Scenario, price: Option<&str>, model: ValueModel) -> Result<Priced<S::Plan>, ToolError> {
    let plan = S::compile(s);
    let pricing = S::pricing(s, &plan, price, model)?;
    let facts = S::facts(s);
    Ok(Priced {
        title: facts.title,
        slug: facts.slug,
        ruleset: facts.ruleset,
        plan,
        pricing,
        hash: facts.hash,
        seed: facts.seed,
        trials: facts.trials,
    })
}

/// `--set`: one value of each field prices the changed piece; several values of one field
/// draw the cost curve, every value on the file's own trials.
fn cost_curve(req: &BalanceRequest, base: String, name: String, player: &Player) -> Result<Balanced, ToolError> {
    use crate::tools::sweep::{self, Assignment};
    let sets = req.sets.iter().map(|s| sweep::parse_set(s)).collect::<Result<Vec<_>, _>>()?;
    let swept: Vec<&Assignment> = sets.iter().filter(|a| a.values.len() > 1).collect();
    if let [first, second, ..] = swept.as_slice() {
        return Err(ToolError::Unsupported(format!(
            "--set {} and --set {} both take several values: a cost curve follows one field, so give every other \
             --set one value (or run `sweep` for a grid of what the piece does)",
            first.path, second.path
        )));
    }
    if let Some(a) = swept.first()
        && a.values.len() > MAX_CURVE_POINTS
    {
        return Err(ToolError::Unsupported(format!(
            "--set {}: {} values; a cost curve takes at most {MAX_CURVE_POINTS} (each is a whole balance): use a \
             coarser range",
            a.path,
            a.values.len()
        )));
    }
    let library = on_system!(load_text(&base, &name)?, profile_library());
    let points = sweep::points_of(&base, &name, &sets, &library, |text, point| {
        load_text(text, point).map(|_| (text.to_string(), point.to_string()))
    })?;
    let mut priced = Vec::with_capacity(points.len());
    let mut first_sets = String::new();
    let mut first_changes = String::new();
    for point in points {
        let (text, point_name) = point.scenario;
        let changes: Vec<String> = sets.iter().zip(&point.values).map(|(a, v)| format!("{}={v}", a.path)).collect();
        let piece = Piece { text, name: point_name, base: base.clone(), changes };
        if priced.is_empty() {
            first_sets = piece.set_args();
            first_changes = format!(", with {}", piece.changes.join(", "));
        }
        let value =
            swept.first().and_then(|a| sets.iter().position(|s| s.path == a.path)).map(|i| point.values[i].clone());
        match price(req, &piece, swept.first().map(|a| a.path.as_str()), player) {
            Ok(run) => priced.push((value, run)),
            // A shard plays every value's share, and reports none of them.
            Err(e) if e.is_shard_played() => {}
            Err(e) => return Err(e),
        }
    }
    player.checkpoint()?;
    let Some(field) = swept.first() else {
        // One value of each field: the changed piece's own balance.
        let (_, (run, folder)) =
            priced.pop().ok_or_else(|| ToolError::Failed("a --set with one value gives one point".into()))?;
        return Ok(Balanced::One { run: Box::new(run), folder });
    };
    let fixed: Vec<String> = sets
        .iter()
        .filter(|a| a.path != field.path)
        .map(|a| format!("{}={}", a.path, sweep::value_text(&a.values[0])))
        .collect();
    let folder = priced.first().map(|(_, (_, folder))| folder.clone()).unwrap_or_default();
    // The first point's title and command, with the --set arguments as given instead of its
    // values (the title is the piece's name against a matchup set, the file's title otherwise).
    let first = &priced.first().ok_or_else(|| ToolError::Failed("a cost curve has points".into()))?.1.0;
    let title = first.title.strip_suffix(&first_changes).unwrap_or(&first.title).to_string();
    let mut command = first.command.replacen(&first_sets, "", 1);
    let sets_arg: String = req.sets.iter().map(|s| format!(" --set {}", shell_quote(s))).collect();
    command.insert_str(command.find(" --seed ").unwrap_or(command.len()), &sets_arg);
    let curve = CostCurve {
        field: field.path.clone(),
        title,
        fixed,
        points: priced.into_iter().map(|(v, (run, _))| (v.unwrap_or_default(), run)).collect(),
        command,
    };
    Ok(Balanced::Curve { curve, folder })
}

/// The profile library of system `S`, so `--set` can reach a field a profile supplies.
fn profile_library<S: Game>(_: S::Scenario) -> toml::Table {
    S::profile_library()
}

/// Prices one piece (the file, or a `--set` point of it): against its references, a
/// target efficiency, or every line of a matchup set. Returns the balance and the report
/// folder's name (`swept`: the field a cost curve follows, which names the folder).
fn price(
    req: &BalanceRequest,
    piece: &Piece,
    swept: Option<&str>,
    player: &Player,
) -> Result<(BalanceRun, String), ToolError> {
    if let Some(set) = &req.matchups {
        return balance_matchups(req, piece, set, swept, player);
    }
    let a = load_text(&piece.text, &piece.name)?;
    let mut references = Vec::with_capacity(req.against.len());
    for path in &req.against {
        let r = load_file(Some(path))?;
        if std::mem::discriminant(&r) != std::mem::discriminant(&a) {
            return Err(ToolError::Unsupported(system::unpaired("balance", &req.file, path, r.kind())));
        }
        references.push(r);
    }
    like_for_like(req, &piece.text)?;
    // A line of models worth different points is priced by the turn engine, which counts
    // each model slain at its own points (a turn of one chariot is the single charge, trial
    // for trial, on the same streams); then every side is.
    let mixed = |l: &Loaded| matches!(l, Loaded::Mesbg(s) if mixed_points(s));
    if mixed(&a) || references.iter().any(mixed) {
        let lift = |l: Loaded| match l {
            Loaded::Mesbg(s) => Loaded::Turn(s),
            other => other,
        };
        let references = references.into_iter().map(lift).collect();
        let note = "the line holds models worth different points, so each model slain is counted at its own points \
                    (`points_slain`) by the turn engine, which plays a lone chariot's charge trial for trial as the \
                    single charge does; no Hero split is given this way";
        return on_system!(lift(a), balance_system(req, references, Some(note), piece, swept, player));
    }
    on_system!(a, balance_system(req, references, None, piece, swept, player))
}

/// The report folder's name of a balance, after the piece (and the field a cost curve
/// follows).
fn folder_name(slug: &str, swept: Option<&str>) -> String {
    let curve = swept.map(|f| format!("--{}", crate::input::slug_of(f, "field"))).unwrap_or_default();
    format!("balance--{slug}{curve}")
}

/// Whether a MESBG single charge meets models worth different points (which the single
/// charge's `kills` cannot weigh).
fn mixed_points(s: &Scenario) -> bool {
    matches!(
        super::pricing(s, &crate::mesbg::plan::compile(s), "chariot.points", Default::default()),
        Err(BalanceError::MixedPoints { .. })
    )
}

/// Refuses references that charge another line than the priced piece: a fair price is the
/// ratio of two efficiencies, and it prices the piece only when both met the same models.
fn like_for_like(req: &BalanceRequest, own_text: &str) -> Result<(), ToolError> {
    let own = crate::tools::matchups::line_of(own_text);
    for path in &req.against {
        let theirs = crate::tools::matchups::line_of(&scenario::read(path)?);
        if let (Some(own), Some(theirs)) = (&own, &theirs)
            && own != theirs
        {
            return Err(ToolError::Unsupported(format!(
                "--against {}: it charges another line than {} (other formations, terrain or army, measured from each \
                 chariot), so the ratio of their efficiencies would price the targets, not the piece; price like for \
                 like: give both the same line, or give one reference and a matchup set that both charge, e.g. \
                 --against {} --matchups scenarios/matchups/mesbg-lines.toml",
                path.display(),
                req.file.display(),
                path.display()
            )));
        }
    }
    Ok(())
}

/// A balance of a piece of system `S` against its references (or a target efficiency),
/// with the Hero's split when one rides.
fn balance_system<S: Game>(
    a: S::Scenario,
    req: &BalanceRequest,
    loaded: Vec<Loaded>,
    note: Option<&str>,
    piece: &Piece,
    swept: Option<&str>,
    player: &Player,
) -> Result<(BalanceRun, String), ToolError> {
    if !req.weights.is_empty() && req.weights.len() != req.against.len() {
        return Err(ToolError::Unsupported(format!(
            "--weights gives {} weights for {} references: give one per --against file, in order",
            req.weights.len(),
            req.against.len()
        )));
    }
    if req.weights.iter().any(|w| !w.is_finite() || *w <= 0.0) {
        return Err(ToolError::Unsupported("--weights must be positive numbers, e.g. --weights 2,1,1".into()));
    }
    let mut references = Vec::with_capacity(req.against.len());
    for (loaded, path) in loaded.into_iter().zip(&req.against) {
        let kind = loaded.kind();
        let r = S::take(loaded)
            .ok_or_else(|| ToolError::Unsupported(system::unpaired("balance", &req.file, path, kind)))?;
        // Each side prices its own acting piece by its system's default field; an explicit
        // --price names A's.
        references.push(priced::<S>(&r, None, req.value)?);
    }
    // With a Hero riding, the same charge without him (on the same streams) splits the price.
    let alone = match S::without_rider(&a) {
        // A chariot priced at 0 without its Hero cannot be priced alone: no split then.
        Some((alone, hero, kind)) => priced::<S>(&alone, req.price.as_deref(), req.value).ok().map(|p| (p, hero, kind)),
        None => None,
    };
    let notes = note.map(str::to_string).into_iter().collect();
    let a = priced::<S>(&a, req.price.as_deref(), req.value)?;
    let key = piece.stream_key(a.hash, |base| Ok(S::facts(&S::parse(base, &piece.name)?).hash))?;
    let slug = a.slug.clone();
    let mut run = balance_of(req, a, references, alone, notes, piece, key, player)?;
    run.title = piece.titled(&run.title);
    Ok((run, folder_name(&slug, swept)))
}

/// A Hero's split of the price: the piece without him, his name, and which split it is.
type Alone<P> = (Priced<P>, String, SplitKind);

/// Plays the piece against each reference (or on its own), and without its rider, and
/// prices it.
#[allow(clippy::too_many_arguments)]
fn balance_of<P: RuleSystem>(
    req: &BalanceRequest,
    a: Priced<P>,
    references: Vec<Priced<P>>,
    alone: Option<Alone<P>>,
    notes: Vec<String>,
    piece: &Piece,
    key: u64,
    player: &Player,
) -> Result<BalanceRun, ToolError> {
    let (seed, trials) = (req.seed.unwrap_or(a.seed), req.trials.unwrap_or(a.trials));
    let streams = Streams::new(seed, key);
    let plays = references.len().max(1) as u64 + u64::from(alone.is_some());
    player.progress.begin(trials.saturating_mul(plays));
    let range = TrialRange { first: 0, count: trials };
    let quote = |p: &Path| shell_quote(&p.display().to_string());
    let mut price_arg = req.price.as_deref().map(|p| format!(" --price {}", shell_quote(p))).unwrap_or_default();
    if req.value == ValueModel::Net {
        price_arg.push_str(" --value net");
    }
    price_arg.push_str(&piece.set_args());
    // `piece` (plan, pricing) played against `reference` (or alone) on the common trials.
    let play = |label: String, piece: (&P, &Pricing), reference: Option<(&P, &Pricing)>| {
        player.play(
            &label,
            "the balance run was interrupted",
            range,
            |range, progress, cancel| super::play(piece.0, piece.1, reference, streams, range, progress, cancel),
            PairedSums::add,
        )
    };
    // Every play first, then what is read from them (a shard stops after its plays).
    let own = (&a.plan, &a.pricing);
    let mut against = Vec::with_capacity(references.len());
    for r in &references {
        against.push(play(format!("{} against {}", a.title, r.title), own, Some((&r.plan, &r.pricing)))?);
    }
    let on_its_own = match (references.is_empty(), req.target_efficiency) {
        (true, Some(_)) => Some(play(format!("{} on its own", a.title), own, None)?),
        _ => None,
    };
    let without_rider = match &alone {
        Some((c, _, _)) => Some(play(format!("{} without its rider", c.title), (&c.plan, &c.pricing), Some(own))?),
        None => None,
    };
    player.checkpoint()?;
    let mut matchups = Vec::new();
    let mut left_out = Vec::new();
    let (fair, spread, command) = match (references.is_empty(), req.target_efficiency) {
        (false, _) => {
            for (i, (r, sums)) in references.iter().zip(against).enumerate() {
                let weight = req.weights.get(i).copied().unwrap_or(1.0);
                let priced = price_line(&sums, &a.pricing, &r.pricing, weight, &r.title);
                match priced {
                    Line::Priced(m) => matchups.push(*m),
                    Line::Unpriced(l) if references.len() == 1 => {
                        return Err(ToolError::Unsupported(format!(
                            "--against {}: {}; choose a reference that does something against this line",
                            r.title, l.reason
                        )));
                    }
                    Line::Unpriced(l) => left_out.push(l),
                }
            }
            let against: String = req.against.iter().map(|p| format!(" {}", quote(p))).collect();
            let weights = if req.weights.is_empty() {
                String::new()
            } else {
                format!(" --weights {}", req.weights.iter().map(f64::to_string).collect::<Vec<_>>().join(","))
            };
            let command = format!(
                "charioteer balance {}{price_arg} --against{against}{weights} --seed {seed} --trials {trials}",
                quote(&req.file)
            );
            if matchups.is_empty() {
                return Err(ToolError::Unsupported(format!(
                    "no reference has a price of its own against this piece, so there is no price: {}",
                    reasons(&left_out)
                )));
            }
            let (fair, spread) = if matchups.len() == 1 && left_out.is_empty() {
                (matchups[0].fair.clone(), None)
            } else {
                let (fair, spread) = field_price(&matchups, &left_out)?;
                (fair, Some(spread))
            };
            (fair, spread, command)
        }
        (true, Some(target)) => {
            let sums = on_its_own.ok_or_else(|| {
                ToolError::Failed("a balance against a target efficiency plays the piece on its own".into())
            })?;
            let fair = super::fair_price_for(&sums, &a.pricing, target);
            let command = format!(
                "charioteer balance {}{price_arg} --target-efficiency {target} --seed {seed} --trials {trials}",
                quote(&req.file)
            );
            (fair, None, command)
        }
        (true, None) => {
            return Err(ToolError::Failed("balance needs --against REFERENCE.toml or --target-efficiency X".into()));
        }
    };
    let split = match (&alone, without_rider) {
        (Some((c, hero, kind)), Some(sums)) => super::split_price(&sums, &c.pricing, &a.pricing, &fair, (*kind, hero)),
        _ => None,
    };
    player.progress.end();
    if !fair.fair_price.is_finite() {
        return Err(ToolError::Failed(
            "the reference destroys nothing, so no price matches its efficiency: choose another reference".into(),
        ));
    }
    let mut rulesets = vec![(a.title.clone(), a.ruleset.clone())];
    rulesets.extend(references.iter().map(|r| (r.title.clone(), r.ruleset.clone())));
    let reference = match references.as_slice() {
        [] => None,
        [one] => Some(one.title.clone()),
        many => Some(format!("{} references", many.len())),
    };
    Ok(BalanceRun {
        rulesets,
        title: a.title.clone(),
        reference,
        fair: fair.clone(),
        pricing: a.pricing.clone(),
        trials,
        seed,
        command,
        matchups: if matchups.len() > 1 { matchups } else { Vec::new() },
        spread,
        split,
        set: None,
        left_out,
        notes,
        leaves_out: Vec::new(),
    })
}

/// The reasons matchups were left out, in one sentence.
fn reasons(left_out: &[LeftOut]) -> String {
    left_out.iter().map(|l| format!("against {}: {}", l.line, l.reason)).collect::<Vec<_>>().join("; ")
}

/// A piece's text placed in front of line `k` of `set`, read by `read` as system `S` (a
/// MESBG piece as a turn, so each model slain counts at its own points), then compiled and
/// priced; a problem of the placed line is named in the set.
#[allow(clippy::too_many_arguments)]
fn placed<S: Game>(
    text: &str,
    file: &Path,
    set: &crate::tools::matchups::MatchupSet,
    k: usize,
    price: Option<&str>,
    model: ValueModel,
    read: impl Fn(&str, &str) -> Result<S::Scenario, ScenarioError>,
) -> Result<(S::Scenario, S::Plan, Pricing), ToolError> {
    use crate::tools::matchups;
    let name = file.display().to_string();
    let placed = matchups::place(text, &name, set, k).map_err(|e| ToolError::Unsupported(e.to_string()))?;
    let label = format!("{name} against \"{}\"", set.lines[k].name);
    let scenario = read(&placed, &label).map_err(|e| match e {
        ScenarioError::Invalid { problems, .. } => {
            ToolError::Unsupported(matchups::placed_problems(set, k, &name, problems).to_string())
        }
        other => other.into(),
    })?;
    let plan = S::compile(&scenario);
    let pricing = S::pricing(&scenario, &plan, price, model)?;
    Ok((scenario, plan, pricing))
}

/// A MESBG piece placed in front of a line, read as a turn (of one chariot or more).
fn read_as_turn(text: &str, label: &str) -> Result<Scenario, ScenarioError> {
    scenario::parse(text, label).and_then(|s| system::check_turn(&s).map(|()| s))
}

/// `--matchups SET`: the priced piece and its one reference each charge every line of the
/// set (placed in front of each, on the same trials), priced line by line; the weighted
/// overall with its sampling interval, and the spread across lines.
fn balance_matchups(
    req: &BalanceRequest,
    piece: &Piece,
    set_path: &Path,
    swept: Option<&str>,
    player: &Player,
) -> Result<(BalanceRun, String), ToolError> {
    use system::{Battlesystem as Bs, Turn};
    let set = crate::tools::matchups::load(set_path).map_err(|e| ToolError::Unsupported(e.to_string()))?;
    let [reference] = req.against.as_slice() else {
        return Err(ToolError::Unsupported(format!(
            "--matchups prices against one reference piece, which charges every line too: give one --against file, \
             not {}",
            req.against.len()
        )));
    };
    if req.target_efficiency.is_some() {
        return Err(ToolError::Unsupported(
            "--matchups needs a reference piece (--against), not --target-efficiency".into(),
        ));
    }
    // Each file must first read as the scenario it is, its own problems named by itself;
    // then each line is placed in front of both and played by their system.
    let b_text = scenario::read(reference)?;
    let seed_and_trials = |f: system::Facts| (req.seed.unwrap_or(f.seed), req.trials.unwrap_or(f.trials), f.slug);
    let price = req.price.as_deref();
    let lined = match (load_text(&piece.text, &piece.name)?, load_file(Some(reference))?) {
        (Loaded::Mesbg(a) | Loaded::Turn(a), Loaded::Mesbg(b) | Loaded::Turn(b)) => {
            let (seed, trials, slug) = seed_and_trials(system::Mesbg::facts(&a));
            let mut rulesets = Vec::new();
            let lines = price_lines(&set, seed, trials, player, |k| {
                let (ak, plan_a, pricing_a) =
                    placed::<Turn>(&piece.text, &req.file, &set, k, price, req.value, read_as_turn)?;
                let (bk, plan_b, pricing_b) =
                    placed::<Turn>(&b_text, reference, &set, k, None, req.value, read_as_turn)?;
                if k == 0 {
                    rulesets = vec![(piece_name(&a), ak.ruleset()), (piece_name(&b), bk.ruleset())];
                }
                // Each line on streams of its own (keyed by the placed piece, as the file
                // writes it), both pieces on them.
                let key = piece.stream_key(ak.hash(), |base| {
                    let placed = crate::tools::matchups::place(base, &piece.name, &set, k)
                        .map_err(|e| ToolError::Unsupported(e.to_string()))?;
                    Ok(scenario::parse(&placed, &piece.name)?.hash())
                })?;
                Ok(((plan_a, pricing_a), (plan_b, pricing_b), key))
            })?;
            let names = (piece_name(&a), piece_name(&b));
            Lined { lines, names, rulesets, notes: kind_notes(&a, &b), slug, seed, trials }
        }
        (Loaded::Battlesystem(a), Loaded::Battlesystem(b)) => {
            let (seed, trials, slug) = seed_and_trials(Bs::facts(&a));
            let mut rulesets = Vec::new();
            let read =
                |text: &str, label: &str| -> Result<BattlesystemScenario, ScenarioError> { Bs::parse(text, label) };
            let lines = price_lines(&set, seed, trials, player, |k| {
                let (ak, plan_a, pricing_a) = placed::<Bs>(&piece.text, &req.file, &set, k, price, req.value, read)?;
                let (bk, plan_b, pricing_b) = placed::<Bs>(&b_text, reference, &set, k, None, req.value, read)?;
                if k == 0 {
                    rulesets = vec![(charger_name(&a), ak.rules.ruleset()), (charger_name(&b), bk.rules.ruleset())];
                }
                let key = piece.stream_key(ak.hash(), |base| {
                    let placed = crate::tools::matchups::place(base, &piece.name, &set, k)
                        .map_err(|e| ToolError::Unsupported(e.to_string()))?;
                    Ok(Bs::parse(&placed, &piece.name)?.hash())
                })?;
                Ok(((plan_a, pricing_a), (plan_b, pricing_b), key))
            })?;
            let names = (charger_name(&a), charger_name(&b));
            Lined { lines, names, rulesets, notes: charger_notes(&a, &b), slug, seed, trials }
        }
        (_, other) => {
            return Err(ToolError::Unsupported(system::unpaired("balance", &req.file, reference, other.kind())));
        }
    };
    player.checkpoint()?;
    let Lined { lines: (matchups, left_out, priced_a), names, rulesets, mut notes, slug, seed, trials } = lined;
    let Some(pricing) = priced_a else {
        return Err(ToolError::Unsupported(format!(
            "every line was left out, so there is no price: {}",
            reasons(&left_out)
        )));
    };
    let (fair, spread) = field_price(&matchups, &left_out)?;
    let counted = matchups.len() + left_out.iter().filter(|l| l.counted.is_some()).count();
    if counted < set.lines.len() {
        notes.push(format!(
            "the overall is over {counted} of the set's {} lines; the others are left out (see why)",
            set.lines.len()
        ));
    }
    let quote = |p: &Path| shell_quote(&p.display().to_string());
    let mut command = format!("charioteer balance {}", quote(&req.file));
    if let Some(p) = &req.price {
        command.push_str(&format!(" --price {}", shell_quote(p)));
    }
    if req.value == ValueModel::Net {
        command.push_str(" --value net");
    }
    command.push_str(&piece.set_args());
    command.push_str(&format!(
        " --against {} --matchups {} --seed {seed} --trials {trials}",
        quote(reference),
        quote(set_path)
    ));
    let run = BalanceRun {
        title: piece.titled(&names.0),
        reference: Some(names.1),
        fair,
        pricing,
        trials,
        seed,
        command,
        rulesets,
        matchups,
        spread: Some(spread),
        split: None,
        set: Some(format!("{} ({})", set.title, set_path.display())),
        left_out,
        notes,
        leaves_out: Vec::new(),
    };
    Ok((run, folder_name(&slug, swept)))
}

/// A line (or reference) of a field: priced, or without a price of its own (counted in
/// the totals or left out, with why).
enum Line {
    Priced(Box<Matchup>),
    Unpriced(LeftOut),
}

/// Prices the piece against one line from its paired sums. By the same rule whichever
/// piece is priced: a line where neither destroys anything is left out (it says nothing
/// about their exchange rate); a line where the reference's worth is not surely above
/// zero, or so small that the price runs away, has no price of its own but counts in the
/// field's totals by what each side destroys there.
fn price_line(sums: &PairedSums, a: &Pricing, b: &Pricing, weight: f64, line: &str) -> Line {
    let worth = super::line_worth(sums, a, b, weight);
    if worth.models == (0.0, 0.0) {
        return Line::Unpriced(LeftOut {
            line: line.to_string(),
            reason: "neither piece destroys anything against this line, so it says nothing about what one is worth \
                     beside the other; left out of the overall"
                .into(),
            counted: None,
        });
    }
    let unpriced = match super::fair_price_against(sums, a, b) {
        None => Some(format!(
            "the reference is worth {:.2} points a trial against this line (it destroys nothing, or loses more than it \
             destroys), so no price matches its efficiency here",
            worth.reference
        )),
        Some(fair) => match super::unbounded(&fair) {
            None => return Line::Priced(Box::new(Matchup { reference: line.to_string(), weight, fair, worth })),
            Some(reason) => Some(reason),
        },
    };
    Line::Unpriced(LeftOut {
        line: line.to_string(),
        reason: format!("{}; it counts in the overall by what each piece destroys there", unpriced.unwrap_or_default()),
        counted: Some(worth),
    })
}

/// The field priced as one over its priced lines and those counted without a price.
fn field_price(matchups: &[Matchup], left_out: &[LeftOut]) -> Result<(FairPrice, Spread), ToolError> {
    let counted: Vec<LineWorth> = left_out.iter().filter_map(|l| l.counted).collect();
    super::overall(matchups, &counted).ok_or_else(|| {
        ToolError::Failed(
            "no price: the weights add up to nothing, or the reference destroys nothing worth points over the field"
                .into(),
        )
    })
}

/// Each line's price, the lines left out with why, and the priced piece's pricing on the
/// first line played.
type LinePrices = (Vec<Matchup>, Vec<LeftOut>, Option<Pricing>);

/// A matchup set played, whichever system: the prices and what the report names.
struct Lined {
    lines: LinePrices,
    /// The priced piece's and the reference's names.
    names: (String, String),
    rulesets: Vec<(String, Vec<crate::input::RuleOption>)>,
    notes: Vec<String>,
    slug: String,
    seed: u64,
    trials: u64,
}

/// A piece and its reference in front of one line: each one's plan and pricing, and the
/// key of the line's streams.
type PlacedPair<P> = ((P, Pricing), (P, Pricing), u64);

/// Plays both pieces against every line of `set` (`place(k)` gives each piece's plan and
/// pricing in front of line `k`, and the key of the line's streams) and prices each line,
/// leaving out by name a line where the reference is worth nothing or the ratio runs away.
fn price_lines<P: RuleSystem>(
    set: &crate::tools::matchups::MatchupSet,
    seed: u64,
    trials: u64,
    player: &Player,
    mut place: impl FnMut(usize) -> Result<PlacedPair<P>, ToolError>,
) -> Result<LinePrices, ToolError> {
    player.progress.begin(trials.saturating_mul(set.lines.len() as u64));
    let range = TrialRange { first: 0, count: trials };
    let (mut matchups, mut left_out, mut priced_a) = (Vec::new(), Vec::new(), None);
    for k in 0..set.lines.len() {
        let ((plan_a, pricing_a), (plan_b, pricing_b), key) = place(k)?;
        let streams = Streams::new(seed, key);
        let line = set.lines[k].name.clone();
        let label = format!("line {} ({line}), both pieces", k + 1);
        let sums = player.play(
            &label,
            "the balance run was interrupted",
            range,
            |range, progress, cancel| {
                super::play(&plan_a, &pricing_a, Some((&plan_b, &pricing_b)), streams, range, progress, cancel)
            },
            PairedSums::add,
        )?;
        priced_a.get_or_insert_with(|| pricing_a.clone());
        match price_line(&sums, &pricing_a, &pricing_b, set.lines[k].weight, &line) {
            Line::Priced(m) => matchups.push(*m),
            Line::Unpriced(l) => left_out.push(l),
        }
    }
    player.progress.end();
    Ok((matchups, left_out, priced_a))
}

/// What makes two BATTLESYSTEM charging units different kinds of thing, in words: one is
/// a battle platform (crew aboard) and the other not, or their fronts differ in width (a
/// wider front meets more figures).
fn charger_notes(a: &BattlesystemScenario, b: &BattlesystemScenario) -> Vec<String> {
    let charger = |s: &BattlesystemScenario| match &s.action {
        Action::Charge { unit, .. } => s.units.get(*unit).cloned(),
        Action::Rout { .. } => None,
    };
    let (Some(ua), Some(ub)) = (charger(a), charger(b)) else { return Vec::new() };
    let mut out = Vec::new();
    if ua.is_platform() != ub.is_platform() {
        let (with, without) = if ua.is_platform() { (&ua.name, &ub.name) } else { (&ub.name, &ua.name) };
        out.push(format!(
            "{with} is a battle platform with crew and {without} is not: the price compares unlike things (much of a \
             platform's worth is its crew's dice)"
        ));
    }
    let front = |u: &Unit| f64::from(u.frontage.min(u.figures).max(1)) * u.base[0];
    if (front(&ua) - front(&ub)).abs() > 1e-9 {
        out.push(format!(
            "the charging units' fronts differ ({} {:.1}\" wide, {} {:.1}\"): a wider front meets more figures, so part \
             of the price is the front",
            ua.name,
            front(&ua),
            ub.name,
            front(&ub)
        ));
    }
    out
}

/// The charging unit's name (a BATTLESYSTEM piece as a price names it), or the title.
fn charger_name(s: &BattlesystemScenario) -> String {
    match &s.action {
        Action::Charge { unit, .. } => s.units.get(*unit).map_or_else(|| s.title.clone(), |u| u.name.clone()),
        Action::Rout { .. } => s.title.clone(),
    }
}

/// What makes the priced piece and its reference different kinds of thing, each in words:
/// one has Impact Hits and the other none (a cavalry model written as a chariot), or
/// their bases differ.
fn kind_notes(a: &Scenario, b: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    let hits = |s: &Scenario| s.chariot.impact.hits.max() > 0;
    if hits(a) != hits(b) {
        let without = if hits(a) { piece_name(b) } else { piece_name(a) };
        out.push(format!(
            "{without} has no Impact Hits: it is not the same kind of piece as the other (much of a chariot's worth is \
             its Impact Hits), so the price compares unlike things"
        ));
    }
    let base = |s: &Scenario| match s.chariot.base {
        Base::Round { diameter_mm } => format!("a {diameter_mm} mm round base"),
        Base::Rect { width_mm, length_mm } => format!("a {width_mm} x {length_mm} mm base"),
        Base::Oval { width_mm, length_mm } => {
            format!("a {width_mm} x {length_mm} mm oval base")
        }
    };
    if base(a) != base(b) {
        out.push(format!(
            "the pieces stand on different bases ({} on {}, {} on {}): a wider base meets more models, so part of the \
             price is the base",
            piece_name(a),
            base(a),
            piece_name(b),
            base(b)
        ));
    }
    if let Some(h) = &a.chariot.hero {
        out.push(format!(
            "no split of the price between the chariot and {} is given across a matchup set; balance against one \
             reference charging the same line gives it",
            h.name
        ));
    }
    out
}

/// A piece by what charges, for a price across lines that are not its own: `Khandish
/// Charioteer`, `Khandish King riding the Khandish Chariot`, `3 x Khandish Charioteer`.
fn piece_name(s: &Scenario) -> String {
    let mut names: Vec<(String, usize)> = Vec::new();
    for e in s.entries() {
        let name = match &e.chariot.hero {
            Some(h) => format!("{} riding the {}", h.name, e.chariot.name),
            None => e.chariot.name.clone(),
        };
        match names.iter_mut().find(|(n, _)| *n == name) {
            Some((_, count)) => *count += 1,
            None => names.push((name, 1)),
        }
    }
    names.into_iter().map(|(n, c)| if c == 1 { n } else { format!("{c} x {n}") }).collect::<Vec<_>>().join(" + ")
}
