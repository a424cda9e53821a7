//! `balance`: the points efficiency and fair price of a chariot, a battle platform or a
//! routing beast, against a reference scenario or a target efficiency.

use super::*;
use crate::engine::RuleSystem;
use crate::tools::balance::Pricing;

/// What a balance needs from each scenario, whichever rule system it is.
struct Priced<'a, P> {
    title: String,
    slug: String,
    ruleset: Vec<crate::input::RuleOption>,
    plan: P,
    pricing: Pricing,
    source: run::Source<'a>,
}

/// Compiles and prices a scenario of system `S` (`price`: the field, or the system's
/// default when `None`).
fn priced<'a, S: System>(
    s: &S::Scenario,
    file: &'a Path,
    price: Option<&str>,
    model: crate::tools::balance::ValueModel,
) -> Result<Priced<'a, S::Plan>> {
    let plan = S::compile(s);
    let pricing = S::pricing(s, &plan, price, model)?;
    let facts = S::facts(s);
    Ok(Priced {
        title: facts.title,
        slug: facts.slug,
        ruleset: facts.ruleset,
        plan,
        pricing,
        source: run::Source::of::<S>(s, Some(file)),
    })
}

/// The priced piece as `balance` reads it: the file's text, or that text with `--set`
/// changes.
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
    fn stream_key(&self, own: u64, make: impl Fn(&str) -> Result<u64>) -> Result<u64> {
        if self.text == self.base { Ok(own) } else { make(&self.base) }
    }
}

pub(super) fn balance(args: BalanceArgs) -> Result<()> {
    let base = scenario::read(&args.file)?;
    let name = args.file.display().to_string();
    if args.sets.is_empty() {
        let piece = Piece { text: base.clone(), name, base, changes: Vec::new() };
        let (run, dir) = price(&args, &piece, None)?;
        return finish_balance(&args, &run, &dir);
    }
    cost_curve(&args, base, name)
}

/// `balance --set`: one value of each field prices the changed piece; several values of
/// one field draw the cost curve, every value on the file's own trials.
fn cost_curve(args: &BalanceArgs, base: String, name: String) -> Result<()> {
    use crate::tools::balance::{CostCurve, MAX_CURVE_POINTS};
    let sets = args.sets.iter().map(|s| crate::tools::sweep::parse_set(s)).collect::<Result<Vec<_>, _>>()?;
    let swept: Vec<&crate::tools::sweep::Assignment> = sets.iter().filter(|a| a.values.len() > 1).collect();
    if let [first, second, ..] = swept.as_slice() {
        return Err(UnsupportedRequest(format!(
            "--set {} and --set {} both take several values: a cost curve follows one field, so give every other \
             --set one value (or run `sweep` for a grid of what the piece does)",
            first.path, second.path
        ))
        .into());
    }
    if let Some(a) = swept.first()
        && a.values.len() > MAX_CURVE_POINTS
    {
        return Err(UnsupportedRequest(format!(
            "--set {}: {} values; a cost curve takes at most {MAX_CURVE_POINTS} (each is a whole balance): use a \
             coarser range",
            a.path,
            a.values.len()
        ))
        .into());
    }
    let library = on_system!(load_text(&base, &name)?, profile_library());
    let points = crate::tools::sweep::points_of(&base, &name, &sets, &library, |text, point| {
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
        match price(args, &piece, swept.first().map(|a| a.path.as_str())) {
            Ok(run) => priced.push((value, run)),
            // A shard plays every value's share, and reports none of them.
            Err(e) if split::shard_played(&e) => {}
            Err(e) => return Err(e),
        }
    }
    args.play.plays.checkpoint()?;
    let Some(field) = swept.first() else {
        // One value of each field: the changed piece's own balance.
        let (_, (run, dir)) = priced.pop().context("a --set with one value gives one point")?;
        return finish_balance(args, &run, &dir);
    };
    let fixed: Vec<String> = sets
        .iter()
        .filter(|a| a.path != field.path)
        .map(|a| format!("{}={}", a.path, crate::tools::sweep::value_text(&a.values[0])))
        .collect();
    let dir = priced.first().map(|(_, (_, dir))| dir.clone()).unwrap_or_default();
    // The first point's title and command, with the --set arguments as given instead of its
    // values (the title is the piece's name against a matchup set, the file's title otherwise).
    let first = &priced.first().context("a cost curve has points")?.1.0;
    let title = first.title.strip_suffix(&first_changes).unwrap_or(&first.title).to_string();
    let mut command = first.command.replacen(&first_sets, "", 1);
    let sets_arg: String = args.sets.iter().map(|s| format!(" --set {}", shell_quote(s))).collect();
    command.insert_str(command.find(" --seed ").unwrap_or(command.len()), &sets_arg);
    let curve = CostCurve {
        field: field.path.clone(),
        title,
        fixed,
        points: priced.into_iter().map(|(v, (run, _))| (v.unwrap_or_default(), run)).collect(),
        command,
    };
    finish_curve(args, &curve, &dir)
}

/// The profile library of system `S`, so `--set` can reach a field a profile supplies.
fn profile_library<S: System>(_: S::Scenario) -> toml::Table {
    S::profile_library()
}

/// Writes a price's report folder with `write` and prints its warnings (not under
/// `--quiet`); says whether it replaced an earlier report, and the files written.
fn write_and_warn(
    args: &BalanceArgs,
    dir: &Path,
    warnings: Vec<String>,
    write: impl FnOnce(&Path) -> Result<Vec<PathBuf>, report::ReportError>,
) -> Result<(bool, Vec<PathBuf>)> {
    let replaced = holds_report(dir);
    let written = write(dir)?;
    if !args.play.quiet {
        for w in warnings {
            eprintln!("warning: {w}");
        }
    }
    Ok((replaced, written))
}

/// Writes a cost curve's report and prints it (table, JSON or nothing).
fn finish_curve(args: &BalanceArgs, curve: &crate::tools::balance::CostCurve, dir: &Path) -> Result<()> {
    let (replaced, written) = write_and_warn(args, dir, curve.warnings(), |d| report::write_balance_curve(d, curve))?;
    if args.play.json {
        out!("{}", serde_json::to_string(&curve.to_json())?);
        return Ok(());
    }
    if args.play.quiet {
        return Ok(());
    }
    let Some((_, first)) = curve.points.first() else { return Ok(()) };
    out!("{}: fair price as {} changes", curve.title, curve.field);
    match (&first.set, &first.reference) {
        (Some(set), Some(r)) => out!("priced against {r} on every line of {set}, every value on the same trials"),
        (None, Some(r)) => out!("priced against {r}, every value on the same trials"),
        _ => out!(
            "priced for a target efficiency of {:.3}, every value on the same trials",
            first.fair.target_efficiency
        ),
    }
    for (value, run) in &curve.points {
        let f = &run.fair;
        let (lo, hi) = report::sampling_interval(run);
        if f.fair_price < 0.0 {
            out!(
                "  {}={value}: no price: it loses more points than it destroys ({:.2} a trial)",
                curve.field,
                f.scenario.points_destroyed
            );
        } else if let (Some(sp), Some(_)) = (&run.spread, &run.set) {
            out!(
                "  {}={value}: fair price {:.2} (sampling 95% CI {lo:.2} to {hi:.2}; across lines {:.2} to {:.2}; both together {:.2} to {:.2})",
                curve.field,
                f.fair_price,
                sp.lowest,
                sp.highest,
                f.ci95_lo,
                f.ci95_hi
            );
        } else {
            out!("  {}={value}: fair price {:.2} (95% CI {lo:.2} to {hi:.2})", curve.field, f.fair_price);
        }
    }
    out!(
        "price paid now {:.0}; {} trials per value, seed {}",
        first.fair.scenario.price,
        group_digits(first.trials),
        first.seed
    );
    out!("{}", report_line("report", dir, written.len(), replaced));
    Ok(())
}

/// Prices one piece (the file, or a `--set` point of it): against its references, a
/// target efficiency, or every line of a matchup set. Returns the balance and the report
/// folder it belongs in (`swept`: the field a cost curve follows, which names the folder).
fn price(
    args: &BalanceArgs,
    piece: &Piece,
    swept: Option<&str>,
) -> Result<(crate::tools::balance::BalanceRun, PathBuf)> {
    if let Some(set) = &args.matchups {
        return balance_matchups(args, piece, set, swept);
    }
    let a = load_text(&piece.text, &piece.name)?;
    let mut references = Vec::with_capacity(args.against.len());
    for path in &args.against {
        let r = load_any(Some(path))?;
        if std::mem::discriminant(&r) != std::mem::discriminant(&a) {
            return Err(compare::unpaired("balance", &args.file, path, r.kind()).into());
        }
        references.push((r, path.clone()));
    }
    like_for_like(args, &piece.text)?;
    // A line of models worth different points is priced by the turn engine, which counts
    // each model slain at its own points (a turn of one chariot is the single charge, trial
    // for trial, on the same streams); then every side is.
    let mixed = |l: &Loaded| matches!(l, Loaded::Mesbg(s) if mixed_points(s));
    if mixed(&a) || references.iter().any(|(r, _)| mixed(r)) {
        let lift = |l: Loaded| match l {
            Loaded::Mesbg(s) => Loaded::Turn(s),
            other => other,
        };
        let references = references.into_iter().map(|(r, p)| (lift(r), p)).collect();
        let note = "the line holds models worth different points, so each model slain is counted at its own points \
                    (`points_slain`) by the turn engine, which plays a lone chariot's charge trial for trial as the \
                    single charge does; no Hero split is given this way";
        return on_system!(lift(a), balance_system(args, references, Some(note), piece, swept));
    }
    on_system!(a, balance_system(args, references, None, piece, swept))
}

/// The report folder of a balance: `--out`, or one under reports/ named after the piece
/// (and the field a cost curve follows).
fn report_dir(args: &BalanceArgs, slug: &str, swept: Option<&str>) -> PathBuf {
    let curve = swept.map(|f| format!("--{}", crate::input::slug_of(f, "field"))).unwrap_or_default();
    args.play.out.clone().unwrap_or_else(|| PathBuf::from("reports").join(format!("balance--{slug}{curve}")))
}

/// Whether a MESBG single charge meets models worth different points (which the single
/// charge's `kills` cannot weigh).
fn mixed_points(s: &Scenario) -> bool {
    matches!(
        crate::tools::balance::pricing(s, &crate::mesbg::plan::compile(s), "chariot.points", Default::default()),
        Err(crate::tools::balance::BalanceError::MixedPoints { .. })
    )
}

/// Refuses references that charge another line than the priced piece: a fair price is the
/// ratio of two efficiencies, and it prices the piece only when both met the same models.
fn like_for_like(args: &BalanceArgs, own_text: &str) -> Result<()> {
    let read = |p: &Path| scenario::read(p).map_err(anyhow::Error::from);
    let own = crate::tools::matchups::line_of(own_text);
    for path in &args.against {
        let theirs = crate::tools::matchups::line_of(&read(path)?);
        if let (Some(own), Some(theirs)) = (&own, &theirs)
            && own != theirs
        {
            return Err(UnsupportedRequest(format!(
                "--against {}: it charges another line than {} (other formations, terrain or army, measured from each \
                 chariot), so the ratio of their efficiencies would price the targets, not the piece; price like for \
                 like: give both the same line, or give one reference and a matchup set that both charge, e.g. \
                 --against {} --matchups scenarios/matchups/mesbg-lines.toml",
                path.display(),
                args.file.display(),
                path.display()
            ))
            .into());
        }
    }
    Ok(())
}

fn balance_system<S: System>(
    a: S::Scenario,
    args: &BalanceArgs,
    loaded: Vec<(Loaded, PathBuf)>,
    note: Option<&str>,
    piece: &Piece,
    swept: Option<&str>,
) -> Result<(crate::tools::balance::BalanceRun, PathBuf)> {
    if !args.weights.is_empty() && args.weights.len() != args.against.len() {
        return Err(UnsupportedRequest(format!(
            "--weights gives {} weights for {} references: give one per --against file, in order",
            args.weights.len(),
            args.against.len()
        ))
        .into());
    }
    if args.weights.iter().any(|w| !w.is_finite() || *w <= 0.0) {
        return Err(UnsupportedRequest("--weights must be positive numbers, e.g. --weights 2,1,1".into()).into());
    }
    let mut references = Vec::with_capacity(args.against.len());
    for ((loaded, _), path) in loaded.into_iter().zip(&args.against) {
        let path = path.as_path();
        let kind = loaded.kind();
        let r = S::take(loaded).ok_or_else(|| compare::unpaired("balance", &args.file, path, kind))?;
        // Each side prices its own acting piece by its system's default field; an explicit
        // --price names A's.
        references.push(priced::<S>(&r, path, None, args.value)?);
    }
    // With a Hero riding, the same charge without him (on the same streams) splits the price.
    let alone = match S::without_rider(&a) {
        // A chariot priced at 0 without its Hero cannot be priced alone: no split then.
        Some((alone, hero, kind)) => {
            priced::<S>(&alone, &args.file, args.price.as_deref(), args.value).ok().map(|p| (p, hero, kind))
        }
        None => None,
    };
    let notes = note.map(str::to_string).into_iter().collect();
    let a = priced::<S>(&a, &args.file, args.price.as_deref(), args.value)?;
    let key = piece.stream_key(a.source.hash, |base| Ok(S::facts(&S::parse(base, &piece.name)?).hash))?;
    let (mut run, slug) = balance_of(args, a, references, alone, notes, piece, key)?;
    run.title = piece.titled(&run.title);
    Ok((run, report_dir(args, &slug, swept)))
}

fn balance_of<P: RuleSystem>(
    args: &BalanceArgs,
    a: Priced<P>,
    references: Vec<Priced<P>>,
    alone: Option<(Priced<P>, String, crate::tools::balance::SplitKind)>,
    notes: Vec<String>,
    piece: &Piece,
    key: u64,
) -> Result<(crate::tools::balance::BalanceRun, String)> {
    let (seed, trials) = a.source.seed_and_trials(&args.play);
    let pool = args.play.pool()?;
    let streams = Streams::new(seed, key);
    let plays = references.len().max(1) as u64 + u64::from(alone.is_some());
    let total = trials.saturating_mul(plays);
    let plays = &args.play.plays;
    let bar = trial_bar(total, args.play.quiet || args.play.json || !plays.is_whole());
    let cancel = &CANCEL;
    let range = TrialRange { first: 0, count: trials };
    let quote = |p: &Path| shell_quote(&p.display().to_string());
    let mut price_arg = args.price.as_deref().map(|p| format!(" --price {}", shell_quote(p))).unwrap_or_default();
    if args.value == crate::tools::balance::ValueModel::Net {
        price_arg.push_str(" --value net");
    }
    price_arg.push_str(&piece.set_args());
    // `piece` (plan, pricing) played against `reference` (or alone) on the common trials.
    let play = |label: String, piece: (&P, &Pricing), reference: Option<(&P, &Pricing)>| {
        let one = |range: TrialRange| {
            let before = bar.position();
            let played = pool.install(|| {
                crate::tools::balance::play(piece.0, piece.1, reference, streams, range, &|n| bar.inc(n), cancel)
            });
            interrupted_play(played, &bar, before, range.count).context("the balance run was interrupted")
        };
        plays.play(&label, range, one, crate::tools::paired::PairedSums::add)
    };
    // Every play first, then what is read from them (a shard stops after its plays).
    let own = (&a.plan, &a.pricing);
    let mut against = Vec::with_capacity(references.len());
    for r in &references {
        against.push(play(format!("{} against {}", a.title, r.title), own, Some((&r.plan, &r.pricing)))?);
    }
    let on_its_own = match (references.is_empty(), args.target_efficiency) {
        (true, Some(_)) => Some(play(format!("{} on its own", a.title), own, None)?),
        _ => None,
    };
    let without_rider = match &alone {
        Some((c, _, _)) => Some(play(format!("{} without its rider", c.title), (&c.plan, &c.pricing), Some(own))?),
        None => None,
    };
    plays.checkpoint()?;
    let mut matchups = Vec::new();
    let mut left_out = Vec::new();
    let (fair, spread, command) = match (references.is_empty(), args.target_efficiency) {
        (false, _) => {
            for (i, (r, sums)) in references.iter().zip(against).enumerate() {
                let fair = crate::tools::balance::fair_price_against(&sums, &a.pricing, &r.pricing).with_context(|| {
                    format!(
                        "the reference {} destroys nothing worth points, so no price matches its efficiency: choose \
                         another reference",
                        r.title
                    )
                })?;
                if let Some(reason) = crate::tools::balance::unbounded(&fair) {
                    if references.len() == 1 {
                        return Err(UnsupportedRequest(format!(
                            "--against {}: {reason}; choose a reference that does something against this line",
                            r.title
                        ))
                        .into());
                    }
                    left_out.push(crate::tools::balance::LeftOut { line: r.title.clone(), reason });
                    continue;
                }
                matchups.push(crate::tools::balance::Matchup {
                    reference: r.title.clone(),
                    weight: args.weights.get(i).copied().unwrap_or(1.0),
                    fair,
                });
            }
            let against: String = args.against.iter().map(|p| format!(" {}", quote(p))).collect();
            let weights = if args.weights.is_empty() {
                String::new()
            } else {
                format!(" --weights {}", args.weights.iter().map(f64::to_string).collect::<Vec<_>>().join(","))
            };
            let command = format!(
                "charioteer balance {}{price_arg} --against{against}{weights} --seed {seed} --trials {trials}",
                quote(&args.file)
            );
            if matchups.is_empty() {
                return Err(UnsupportedRequest(format!(
                    "every reference was left out, so there is no price: {}",
                    reasons(&left_out)
                ))
                .into());
            }
            let (fair, spread) = if matchups.len() == 1 {
                (matchups[0].fair.clone(), None)
            } else {
                let (fair, spread) =
                    crate::tools::balance::overall(&matchups).context("the weights add up to nothing")?;
                (fair, Some(spread))
            };
            (fair, spread, command)
        }
        (true, Some(target)) => {
            let sums = on_its_own.context("a balance against a target efficiency plays the piece on its own")?;
            let fair = crate::tools::balance::fair_price_for(&sums, &a.pricing, target);
            let spread = None;
            let command = format!(
                "charioteer balance {}{price_arg} --target-efficiency {target} --seed {seed} --trials {trials}",
                quote(&args.file)
            );
            (fair, spread, command)
        }
        (true, None) => anyhow::bail!("balance needs --against REFERENCE.toml or --target-efficiency X"),
    };
    let split = match (&alone, without_rider) {
        (Some((c, hero, kind)), Some(sums)) => {
            crate::tools::balance::split_price(&sums, &c.pricing, &a.pricing, &fair, (*kind, hero))
        }
        _ => None,
    };
    bar.finish_and_clear();
    anyhow::ensure!(
        fair.fair_price.is_finite(),
        "the reference destroys nothing, so no price matches its efficiency: choose another reference"
    );
    let mut rulesets = vec![(a.title.clone(), a.ruleset.clone())];
    rulesets.extend(references.iter().map(|r| (r.title.clone(), r.ruleset.clone())));
    let reference = match references.as_slice() {
        [] => None,
        [one] => Some(one.title.clone()),
        many => Some(format!("{} references", many.len())),
    };
    let run = crate::tools::balance::BalanceRun {
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
    };
    Ok((run, a.slug))
}

/// Writes a balance's report and prints it (table, JSON or nothing).
fn finish_balance(args: &BalanceArgs, run: &crate::tools::balance::BalanceRun, dir: &Path) -> Result<()> {
    let fair = &run.fair;
    let (seed, trials) = (run.seed, run.trials);
    let (replaced, written) = write_and_warn(args, dir, run.warnings(), |d| report::write_balance(d, run))?;
    if args.play.json {
        out!("{}", serde_json::to_string(&run.to_json())?);
    } else if !args.play.quiet {
        let s = &fair.scenario;
        out!("{}", run.title);
        if let (Some(set), Some(first)) = (&run.set, run.matchups.first()) {
            out!(
                "price {:.0} points, priced against {} ({:.0} points) on every line of {set}, both on the same trials",
                s.price,
                run.reference.as_deref().unwrap_or("the reference"),
                first.fair.reference.as_ref().map_or(0.0, |r| r.price)
            );
        } else {
            out!(
                "price {:.0} points: {:.3} {} per trial (+/- {:.3}), efficiency {:.4} per point, {:.2} models or figures per 100 points",
                s.price,
                s.points_destroyed,
                match run.pricing.model {
                    crate::tools::balance::ValueModel::Kills => "enemy points destroyed",
                    crate::tools::balance::ValueModel::Net =>
                        "points of value (enemy points destroyed less its own lost)",
                },
                crate::mesbg::analysis::Z95 * s.points_destroyed_se,
                s.efficiency,
                s.kills_per_100_points
            );
        }
        if let (Some(r), Some(name), None) = (&fair.reference, &run.reference, &run.set) {
            out!("reference {name}: price {:.0}, efficiency {:.4} per point", r.price, r.efficiency);
        }
        for m in &run.matchups {
            if m.fair.fair_price < 0.0 {
                out!(
                    "  against {} (weight {}): no price: it loses more points than it destroys there ({:.2} a trial)",
                    m.reference,
                    m.weight,
                    m.fair.scenario.points_destroyed
                );
            } else {
                out!(
                    "  against {} (weight {}): fair price {:.2} (95% CI {:.2} to {:.2})",
                    m.reference,
                    m.weight,
                    m.fair.fair_price,
                    m.fair.ci95_lo,
                    m.fair.ci95_hi
                );
            }
        }
        for l in &run.left_out {
            out!("  against {}: left out of the overall (see the warning above)", l.line);
        }
        let played = format!("{} trials, seed {seed}", group_digits(trials));
        if fair.fair_price < 0.0 {
            out!(
                "no fair price: under the net value model it loses more points than it destroys ({:.2} points a trial), \
                 so no price makes it pay for itself; {played}",
                fair.scenario.points_destroyed
            );
        } else if let Some(sp) = &run.spread {
            out!(
                "overall fair price {:.2} points: from sampling, 95% CI {:.2} to {:.2} ({played})",
                fair.fair_price,
                sp.sampling_ci95.0,
                sp.sampling_ci95.1
            );
            out!(
                "across matchups: {:.2} against {} to {:.2} against {} (weighted sd {:.2}); both together, {:.2} to {:.2}",
                sp.lowest,
                sp.lowest_against,
                sp.highest,
                sp.highest_against,
                sp.between_sd,
                fair.ci95_lo,
                fair.ci95_hi
            );
        } else {
            out!(
                "fair price {:.2} points (95% CI {:.2} to {:.2}), {played}",
                fair.fair_price,
                fair.ci95_lo,
                fair.ci95_hi
            );
        }
        if let Some(sp) = &run.split {
            match sp.kind {
                crate::tools::balance::SplitKind::HeroRiding => out!(
                    "of which the chariot {:.2} (95% CI {:.2} to {:.2}) and {} riding it {:.2} (95% CI {:.2} to {:.2}); \
                     without him it does {:.1}% of the work",
                    sp.chariot.0,
                    sp.chariot.1,
                    sp.chariot.2,
                    sp.hero,
                    sp.hero_part.0,
                    sp.hero_part.1,
                    sp.hero_part.2,
                    100.0 * sp.chariot_share
                ),
                crate::tools::balance::SplitKind::LastChariot => out!(
                    "one more chariot: {} adds {:.2} points of it (95% CI {:.2} to {:.2}), the others {:.2}; \
                     the turn without it does {:.1}% of the work",
                    sp.hero,
                    sp.hero_part.0,
                    sp.hero_part.1,
                    sp.hero_part.2,
                    sp.chariot.0,
                    100.0 * sp.chariot_share
                ),
            }
        }
        out!("{}", report_line("report", dir, written.len(), replaced));
    }
    Ok(())
}

/// The reasons matchups were left out, in one sentence.
fn reasons(left_out: &[crate::tools::balance::LeftOut]) -> String {
    left_out.iter().map(|l| format!("against {}: {}", l.line, l.reason)).collect::<Vec<_>>().join("; ")
}

/// One side of a matchup: a piece placed in front of a line, compiled and priced.
fn placed_piece(
    text: &str,
    file: &Path,
    set: &crate::tools::matchups::MatchupSet,
    k: usize,
    price: Option<&str>,
    model: crate::tools::balance::ValueModel,
) -> Result<(Scenario, crate::mesbg::turn::TurnPlan, Pricing)> {
    use crate::tools::matchups;
    let name = file.display().to_string();
    let placed = matchups::place(text, &name, set, k).map_err(|e| UnsupportedRequest(e.to_string()))?;
    let label = format!("{name} against \"{}\"", set.lines[k].name);
    let scenario =
        scenario::parse(&placed, &label).and_then(|s| turn::check_turn(&s).map(|()| s)).map_err(|e| match e {
            ScenarioError::Invalid { problems, .. } => {
                anyhow::Error::from(UnsupportedRequest(matchups::placed_problems(set, k, &name, problems).to_string()))
            }
            other => other.into(),
        })?;
    let plan = <turn::Turn as System>::compile(&scenario);
    let pricing = <turn::Turn as System>::pricing(&scenario, &plan, price, model)?;
    Ok((scenario, plan, pricing))
}

/// `balance --matchups SET`: the priced piece and its one reference each charge every line
/// of the set (placed in front of each, on the same trials), priced line by line; the
/// weighted overall with its sampling interval, and the spread across lines.
fn balance_matchups(
    args: &BalanceArgs,
    piece: &Piece,
    set_path: &Path,
    swept: Option<&str>,
) -> Result<(crate::tools::balance::BalanceRun, PathBuf)> {
    use crate::tools::balance as bal;
    let set = crate::tools::matchups::load(set_path).map_err(|e| UnsupportedRequest(e.to_string()))?;
    let [reference] = args.against.as_slice() else {
        return Err(UnsupportedRequest(format!(
            "--matchups prices against one reference piece, which charges every line too: give one --against file, \
             not {}",
            args.against.len()
        ))
        .into());
    };
    if args.target_efficiency.is_some() {
        return Err(UnsupportedRequest(
            "--matchups needs a reference piece (--against), not --target-efficiency".into(),
        )
        .into());
    }
    // Each file must first read as the scenario it is, its own problems named by itself;
    // then each line is placed in front of both and played by their system.
    let b_text = scenario::read(reference)?;
    let pool = args.play.pool()?;
    let lined = match (load_text(&piece.text, &piece.name)?, load_any(Some(reference))?) {
        (Loaded::Mesbg(a) | Loaded::Turn(a), Loaded::Mesbg(b) | Loaded::Turn(b)) => {
            let source = run::Source::of::<super::system::Mesbg>(&a, Some(&args.file));
            let (seed, trials) = source.seed_and_trials(&args.play);
            let mut rulesets = Vec::new();
            let lines = price_lines(&set, seed, trials, &pool, &args.play, |k| {
                let (ak, plan_a, pricing_a) =
                    placed_piece(&piece.text, &args.file, &set, k, args.price.as_deref(), args.value)?;
                let (bk, plan_b, pricing_b) = placed_piece(&b_text, reference, &set, k, None, args.value)?;
                if k == 0 {
                    rulesets = vec![(piece_name(&a), ak.ruleset()), (piece_name(&b), bk.ruleset())];
                }
                // Each line on streams of its own (keyed by the placed piece, as the file
                // writes it), both pieces on them.
                let key = piece.stream_key(ak.hash(), |base| {
                    let placed = crate::tools::matchups::place(base, &piece.name, &set, k)?;
                    Ok(scenario::parse(&placed, &piece.name)?.hash())
                })?;
                Ok(((plan_a, pricing_a), (plan_b, pricing_b), key))
            })?;
            let names = (piece_name(&a), piece_name(&b));
            Lined { lines, names, rulesets, notes: kind_notes(&a, &b), slug: source.slug, seed, trials }
        }
        (Loaded::Battlesystem(a), Loaded::Battlesystem(b)) => {
            use super::system::Battlesystem as Bs;
            let source = run::Source::of::<Bs>(&a, Some(&args.file));
            let (seed, trials) = source.seed_and_trials(&args.play);
            let mut rulesets = Vec::new();
            let lines = price_lines(&set, seed, trials, &pool, &args.play, |k| {
                let (ak, plan_a, pricing_a) =
                    placed_units(&piece.text, &args.file, &set, k, args.price.as_deref(), args.value)?;
                let (bk, plan_b, pricing_b) = placed_units(&b_text, reference, &set, k, None, args.value)?;
                if k == 0 {
                    rulesets = vec![(charger_name(&a), ak.rules.ruleset()), (charger_name(&b), bk.rules.ruleset())];
                }
                let key = piece.stream_key(ak.hash(), |base| {
                    let placed = crate::tools::matchups::place(base, &piece.name, &set, k)?;
                    Ok(<Bs as System>::parse(&placed, &piece.name)?.hash())
                })?;
                Ok(((plan_a, pricing_a), (plan_b, pricing_b), key))
            })?;
            let names = (charger_name(&a), charger_name(&b));
            Lined { lines, names, rulesets, notes: charger_notes(&a, &b), slug: source.slug, seed, trials }
        }
        (_, other) => return Err(compare::unpaired("balance", &args.file, reference, other.kind()).into()),
    };
    args.play.plays.checkpoint()?;
    let Lined { lines: (matchups, left_out, priced_a), names, rulesets, mut notes, slug, seed, trials } = lined;
    let Some(pricing) = priced_a else {
        return Err(UnsupportedRequest(format!(
            "every line was left out, so there is no price: {}",
            reasons(&left_out)
        ))
        .into());
    };
    let (fair, spread) = bal::overall(&matchups).context("the weights add up to nothing")?;
    if matchups.len() < set.lines.len() {
        notes.push(format!(
            "the overall is over {} of the set's {} lines; the others are left out (see why)",
            matchups.len(),
            set.lines.len()
        ));
    }
    let quote = |p: &Path| shell_quote(&p.display().to_string());
    let mut command = format!("charioteer balance {}", quote(&args.file));
    if let Some(p) = &args.price {
        command.push_str(&format!(" --price {}", shell_quote(p)));
    }
    if args.value == bal::ValueModel::Net {
        command.push_str(" --value net");
    }
    command.push_str(&piece.set_args());
    command.push_str(&format!(
        " --against {} --matchups {} --seed {seed} --trials {trials}",
        quote(reference),
        quote(set_path)
    ));
    let run = bal::BalanceRun {
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
    };
    Ok((run, report_dir(args, &slug, swept)))
}

/// Each line's price, the lines left out with why, and the priced piece's pricing on the
/// first line priced.
type LinePrices = (Vec<crate::tools::balance::Matchup>, Vec<crate::tools::balance::LeftOut>, Option<Pricing>);

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

/// Plays both pieces against every line of `set` (`place(k)` gives each piece's plan and
/// pricing in front of line `k`, and the key of the line's streams) and prices each line,
/// leaving out by name a line where the reference is worth nothing or the ratio runs away.
fn price_lines<P: RuleSystem>(
    set: &crate::tools::matchups::MatchupSet,
    seed: u64,
    trials: u64,
    pool: &rayon::ThreadPool,
    play: &PlayOptions,
    mut place: impl FnMut(usize) -> Result<((P, Pricing), (P, Pricing), u64)>,
) -> Result<LinePrices> {
    use crate::tools::balance::{self as bal, LeftOut, Matchup};
    let plays = &play.plays;
    let hidden = play.quiet || play.json || !plays.is_whole();
    let bar = trial_bar(trials.saturating_mul(set.lines.len() as u64), hidden);
    let range = TrialRange { first: 0, count: trials };
    let (mut matchups, mut left_out, mut priced_a) = (Vec::new(), Vec::new(), None);
    for k in 0..set.lines.len() {
        let ((plan_a, pricing_a), (plan_b, pricing_b), key) = place(k)?;
        let streams = Streams::new(seed, key);
        let one = |range: TrialRange| {
            let before = bar.position();
            let played = pool.install(|| {
                bal::play(&plan_a, &pricing_a, Some((&plan_b, &pricing_b)), streams, range, &|n| bar.inc(n), &CANCEL)
            });
            interrupted_play(played, &bar, before, range.count).context("the balance run was interrupted")
        };
        let line = set.lines[k].name.clone();
        let label = format!("line {} ({line}), both pieces", k + 1);
        let sums = plays.play(&label, range, one, crate::tools::paired::PairedSums::add)?;
        let Some(fair) = bal::fair_price_against(&sums, &pricing_a, &pricing_b) else {
            let worth = bal::efficiencies(&sums, &pricing_a, &pricing_b).1.points_destroyed;
            left_out.push(LeftOut {
                line,
                reason: format!(
                    "the reference is worth {worth:.2} points a trial against this line (it destroys nothing, or loses \
                     more than it destroys), so no price matches its efficiency"
                ),
            });
            continue;
        };
        if let Some(reason) = bal::unbounded(&fair) {
            left_out.push(LeftOut { line, reason });
            continue;
        }
        priced_a.get_or_insert(pricing_a);
        matchups.push(Matchup { reference: line, weight: set.lines[k].weight, fair });
    }
    bar.finish_and_clear();
    Ok((matchups, left_out, priced_a))
}

/// A BATTLESYSTEM charge (its text, read from `file`) placed in front of BATTLESYSTEM line
/// `k` of `set`, read, compiled and priced; a problem of the line is named in the set.
fn placed_units(
    text: &str,
    file: &Path,
    set: &crate::tools::matchups::MatchupSet,
    k: usize,
    price: Option<&str>,
    model: crate::tools::balance::ValueModel,
) -> Result<(crate::battlesystem::scenario::BattlesystemScenario, <super::system::Battlesystem as System>::Plan, Pricing)>
{
    use super::system::Battlesystem as Bs;
    use crate::tools::matchups;
    let name = file.display().to_string();
    let placed = matchups::place(text, &name, set, k).map_err(|e| UnsupportedRequest(e.to_string()))?;
    let label = format!("{name} against \"{}\"", set.lines[k].name);
    let scenario = <Bs as System>::parse(&placed, &label).map_err(|e| match e {
        ScenarioError::Invalid { problems, .. } => {
            anyhow::Error::from(UnsupportedRequest(matchups::placed_problems(set, k, &name, problems).to_string()))
        }
        other => other.into(),
    })?;
    let plan = <Bs as System>::compile(&scenario);
    let pricing = <Bs as System>::pricing(&scenario, &plan, price, model)?;
    Ok((scenario, plan, pricing))
}

/// What makes two BATTLESYSTEM charging units different kinds of thing, in words: one is
/// a battle platform (crew aboard) and the other not, or their fronts differ in width (a
/// wider front meets more figures).
fn charger_notes(
    a: &crate::battlesystem::scenario::BattlesystemScenario,
    b: &crate::battlesystem::scenario::BattlesystemScenario,
) -> Vec<String> {
    let charger = |s: &crate::battlesystem::scenario::BattlesystemScenario| match &s.action {
        crate::battlesystem::scenario::Action::Charge { unit, .. } => s.units.get(*unit).cloned(),
        crate::battlesystem::scenario::Action::Rout { .. } => None,
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
    let front = |u: &crate::battlesystem::scenario::Unit| f64::from(u.frontage.min(u.figures).max(1)) * u.base[0];
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
fn charger_name(s: &crate::battlesystem::scenario::BattlesystemScenario) -> String {
    match &s.action {
        crate::battlesystem::scenario::Action::Charge { unit, .. } => {
            s.units.get(*unit).map_or_else(|| s.title.clone(), |u| u.name.clone())
        }
        crate::battlesystem::scenario::Action::Rout { .. } => s.title.clone(),
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
        crate::mesbg::scenario::Base::Round { diameter_mm } => format!("a {diameter_mm} mm round base"),
        crate::mesbg::scenario::Base::Rect { width_mm, length_mm } => format!("a {width_mm} x {length_mm} mm base"),
        crate::mesbg::scenario::Base::Oval { width_mm, length_mm } => {
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
