//! Validation of a scenario as written: every field checked, every problem recorded with
//! its field and line, the profile library looked up, the geometry checked for overlaps.

use super::*;

mod formations;

impl Checker<'_> {
    /// The `answer` metrics by name: each one a single charge can report, named once; a turn
    /// has its own headline (whether the line broke) and takes none yet.
    fn answer(&mut self, names: &[String], turn: bool) -> Vec<crate::mesbg::tally::Metric> {
        use crate::mesbg::tally::Metric;
        if turn && !names.is_empty() {
            self.fail(
                "answer",
                "`answer` is for a single charge; a turn's report leads with whether the line broke (remove `answer`)",
            );
            return Vec::new();
        }
        let mut metrics = Vec::new();
        for name in names {
            match Metric::from_name(name) {
                Some(m) if metrics.contains(&m) => self.fail("answer", format!("\"{name}\" is named twice")),
                Some(m) => metrics.push(m),
                None => {
                    let known: Vec<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
                    self.fail(
                        "answer",
                        format!("no metric is called \"{name}\"; a charge's metrics are: {}", known.join(", ")),
                    );
                }
            }
        }
        metrics
    }

    /// A warning on `field`: the scenario runs, and validate and the report say this.
    fn warn(&mut self, field: &str, message: impl fmt::Display) {
        let field = self.renamed(field);
        self.warnings.push(Problem { line: locate(self.text, &field), field, message: message.to_string() });
    }

    fn fail(&mut self, field: &str, message: impl fmt::Display) {
        let field = self.renamed(field);
        record(self.text, &mut self.problems, &field, message);
    }

    /// A `[chariot]` or `[charge]` field as it is named in the file: inside `[[chariots]]`
    /// while a turn's chariot is being read, both are fields of its table.
    fn renamed(&self, field: &str) -> String {
        let Some(i) = self.entry else { return field.to_string() };
        for table in ["chariot", "charge"] {
            if field == table {
                return format!("chariots[{i}]");
            }
            if let Some(rest) = field.strip_prefix(table).and_then(|r| r.strip_prefix('.')) {
                return format!("chariots[{i}].{rest}");
            }
        }
        field.to_string()
    }

    fn int(&mut self, field: &str, value: i64, lo: i64, hi: i64, what: &str) -> u8 {
        if (lo..=hi).contains(&value) {
            value as u8
        } else {
            self.fail(field, format!("{what} {value} is out of range; allowed {lo} to {hi}"));
            lo as u8
        }
    }

    fn missing(&mut self, field: &str, hint: &str) {
        self.fail(field, format!("this field is missing; give it{hint}"));
    }

    fn req_int(&mut self, field: &str, value: Option<i64>, lo: i64, hi: i64, what: &str, hint: &str) -> u8 {
        match value {
            Some(v) => self.int(field, v, lo, hi, what),
            None => {
                self.missing(field, hint);
                lo as u8
            }
        }
    }

    fn req_target(&mut self, field: &str, value: Option<&String>, hint: &str) -> Target {
        match value {
            Some(v) => self.target(field, v),
            None => {
                self.missing(field, hint);
                Target(7)
            }
        }
    }

    /// Looks a name up in one kind of the library, reporting unknown names with the choice.
    fn lookup<T: Clone>(
        &mut self,
        field: &str,
        kind: &str,
        name: &str,
        table: &std::collections::BTreeMap<String, T>,
    ) -> Option<T> {
        match table.get(name) {
            Some(found) => Some(found.clone()),
            None => {
                let known: Vec<String> = table.keys().map(|k| format!("\"{k}\"")).collect();
                let near = crate::input::nearest_names(name, table.keys().map(String::as_str));
                let guess = match near.as_slice() {
                    [] => String::new(),
                    [one] => format!("; did you mean \"{one}\"?"),
                    more => format!(
                        "; did you mean {}?",
                        more.iter().map(|k| format!("\"{k}\"")).collect::<Vec<_>>().join(" or ")
                    ),
                };
                self.fail(field, format!("no {kind} profile is named \"{name}\"{guess} (known: {})", known.join(", ")));
                None
            }
        }
    }

    fn float(&mut self, field: &str, value: f64, lo: f64, hi: f64, what: &str) -> f64 {
        checked_float(self.text, &mut self.problems, field, value, (lo, hi), what)
    }

    fn point(&mut self, field: &str, value: [f64; 2]) -> Vec2 {
        let x = self.float(field, value[0], -1000.0, 1000.0, "the x coordinate (inches)");
        let y = self.float(field, value[1], -1000.0, 1000.0, "the y coordinate (inches)");
        Vec2::new(x, y)
    }

    fn target(&mut self, field: &str, text: &str) -> Target {
        let parsed = text.trim().strip_suffix('+').and_then(|n| n.trim().parse::<u8>().ok());
        match parsed {
            Some(n) if (2..=12).contains(&n) => Target(n),
            _ => {
                self.fail(field, format!("`{text}` is not a target number; write one like \"7+\" (2+ to 12+)"));
                Target(7)
            }
        }
    }

    fn points(&mut self, field: &str, value: i64) -> u32 {
        if (0..=100_000).contains(&value) {
            value as u32
        } else {
            self.fail(field, format!("points {value} is out of range; allowed 0 to 100000"));
            0
        }
    }

    fn base(&mut self, field: &str, raw: &RawBase, round_only: bool) -> Option<Base> {
        let given = [raw.round_mm.is_some(), raw.rect_mm.is_some(), raw.oval_mm.is_some()];
        if given.iter().filter(|g| **g).count() != 1 {
            self.fail(
                field,
                "give exactly one of round_mm = D, rect_mm = [width, length] or oval_mm = [width, length]",
            );
            return None;
        }
        if let Some(d) = raw.round_mm {
            let d = self.float(&format!("{field}.round_mm"), d, 10.0, 300.0, "the base diameter (mm)");
            return Some(Base::Round { diameter_mm: d });
        }
        if round_only && raw.rect_mm.is_some() {
            self.fail(
                &format!("{field}.rect_mm"),
                "models in a formation stand on round or oval bases; use round_mm or oval_mm = [width, length]",
            );
            return None;
        }
        if let Some([w, l]) = raw.oval_mm {
            let w = self.float(&format!("{field}.oval_mm"), w, 10.0, 300.0, "the oval's width (mm)");
            let l = self.float(&format!("{field}.oval_mm"), l, 10.0, 300.0, "the oval's length (mm)");
            return Some(Base::Oval { width_mm: w, length_mm: l });
        }
        let [w, l] = raw.rect_mm.unwrap_or([0.0, 0.0]);
        let w = self.float(&format!("{field}.rect_mm"), w, 10.0, 300.0, "the base width (mm)");
        let l = self.float(&format!("{field}.rect_mm"), l, 10.0, 300.0, "the base length (mm)");
        Some(Base::Rect { width_mm: w, length_mm: l })
    }

    pub(super) fn scenario(&mut self, raw: RawScenario, file: &str) -> Option<Scenario> {
        let system = match raw.system.as_str() {
            "mesbg" => Some(System::Mesbg),
            "battlesystem" => {
                self.fail("system", BATTLESYSTEM_COMMANDS);
                None
            }
            other => {
                self.fail("system", format!("unknown system \"{other}\"; allowed: \"mesbg\", \"battlesystem\""));
                None
            }
        };
        let (trials, seed) =
            header_fields(self.text, &mut self.problems, &raw.title, raw.question.as_deref(), raw.trials, raw.seed);
        let terrain: Vec<Terrain> = raw.terrain.iter().enumerate().filter_map(|(i, t)| self.terrain(i, t)).collect();
        let army = raw.army.as_ref().map(|a| self.army(a));
        self.chariot_starts = raw.chariot.iter().map(|c| c.at).chain(raw.chariots.iter().map(|c| c.at)).collect();
        self.formation_fronts = raw.formations.iter().map(|f| f.front_centre).collect();
        let mut entries = self.chariots(&raw);
        let (chariot, charge) = match entries.first_mut() {
            Some(first) => (first.0.take(), first.1.take()),
            None => (None, None),
        };
        let more: Vec<Option<TurnEntry>> =
            entries.into_iter().skip(1).map(|(c, g)| Some(TurnEntry { chariot: c?, charge: g? })).collect();
        let turn = self.turn(raw.turn.as_ref(), 1 + more.len(), raw.army.is_some());
        let side = chariot.as_ref().map_or(Side::Good, |c| c.side.opponent());
        let formations: Vec<Formation> =
            raw.formations.iter().enumerate().filter_map(|(i, f)| self.formation(i, f, side)).collect();
        let total: usize = formations.iter().map(|f| f.centres.len()).sum();
        if total > MAX_MODELS {
            self.fail("formations", format!("{total} models in all; at most {MAX_MODELS} are allowed"));
        }
        let rules = MesbgRules::from_raw(&raw.rules);
        let answer = self.answer(&raw.answer, !more.is_empty());
        let scenario = Scenario {
            file: file.to_string(),
            title: raw.title,
            question: raw.question,
            answer,
            system: system?,
            trials,
            seed,
            chariot: chariot?,
            charge: charge?,
            more: more.into_iter().collect::<Option<Vec<_>>>()?,
            turn,
            turn_rules: TurnRules {
                corridor_width: raw.turn.as_ref().and_then(|t| t.corridor_width).unwrap_or_default(),
                fight_order: raw.turn.as_ref().and_then(|t| t.fight_order).unwrap_or_default(),
                strike_order: raw.turn.as_ref().and_then(|t| t.strike_order).unwrap_or_default(),
            },
            formations,
            rules,
            army,
            terrain,
            warnings: Vec::new(),
        };
        if raw.formations.len() == scenario.formations.len() && total <= MAX_MODELS {
            for i in 0..=scenario.more.len() {
                self.entry = scenario.is_turn().then_some(i);
                self.overlaps(&scenario.view(i));
            }
            self.entry = None;
            self.chariots_apart(&scenario);
            self.turn_supported(&scenario);
            self.supporters_touch(&scenario);
            let explicit: Vec<bool> = raw.formations.iter().map(|f| f.facing.is_some()).collect();
            self.facing_away(&scenario, &explicit);
            self.ranks_apart(&scenario);
        }
        Some(scenario)
    }

    /// The facing of a chariot or formation the file left without one: towards the nearest
    /// of `targets` (where the formations or the chariots stand), said in a warning. Never
    /// a fixed compass direction: a board turned round keeps its meaning.
    fn facing_towards(&mut self, field: &str, from: [f64; 2], targets: &[[f64; 2]], towards: &str) -> f64 {
        let distance = |t: &[f64; 2]| (t[0] - from[0]).hypot(t[1] - from[1]);
        let nearest = targets.iter().filter(|t| distance(t) > 1e-9).min_by(|a, b| distance(a).total_cmp(&distance(b)));
        let Some(t) = nearest else { return 0.0 };
        let facing = (t[0] - from[0]).atan2(t[1] - from[1]).to_degrees().rem_euclid(360.0);
        let field = self.renamed(field);
        self.warnings.push(Problem {
            line: locate(self.text, &field),
            field,
            message: format!(
                "`facing` is not given: it faces {towards}, {facing:.1} degrees (clockwise from +y); give `facing` to say which way it faces"
            ),
        });
        facing
    }

    /// A formation whose facing was given but turns its back on every chariot: probably not
    /// what a player means (a charge would meet its rear rank first).
    fn facing_away(&mut self, scenario: &Scenario, explicit: &[bool]) {
        let starts: Vec<Vec2> = scenario.entries().iter().map(|e| e.chariot.start.centre).collect();
        for (i, f) in scenario.formations.iter().enumerate() {
            if !explicit.get(i).copied().unwrap_or(false) {
                continue;
            }
            let front = Vec2::heading(f.facing);
            if starts.iter().all(|&c| front.dot(c - f.front_centre) < 0.0) {
                let field = format!("formations[{i}].facing");
                self.warnings.push(Problem {
                    line: locate(self.text, &field),
                    field,
                    message: format!(
                        "\"{}\" faces away from every chariot (facing {:.0} degrees, its back to them): a charge meets its rear rank first and reads its ranks backwards; if it should face them, turn it round",
                        f.name, f.facing
                    ),
                });
            }
        }
    }

    /// Two formations facing one way, one behind the other, close but not touching: ranks
    /// of one line written as two formations that a hair keeps apart (they are two lines for
    /// `line_breached`, and a spear behind does not support).
    fn ranks_apart(&mut self, scenario: &Scenario) {
        let tolerance = crate::mesbg::plan::support::BASE_CONTACT_MM / geometry::MM_PER_INCH;
        let f = &scenario.formations;
        for a in 0..f.len() {
            for b in a + 1..f.len() {
                let same = ((f[a].facing - f[b].facing).rem_euclid(360.0))
                    .min((f[b].facing - f[a].facing).rem_euclid(360.0))
                    < 1e-6;
                if !same {
                    continue;
                }
                let gap = f[a]
                    .centres
                    .iter()
                    .flat_map(|&ca| f[b].centres.iter().map(move |&cb| (ca, cb)))
                    .map(|(ca, cb)| f[a].disc_at(ca).distance_to(&f[b].disc_at(cb)))
                    .fold(f64::INFINITY, f64::min);
                // One behind the other: their fronts apart along the facing more than across.
                let d = f[b].front_centre - f[a].front_centre;
                let forward = Vec2::heading(f[a].facing);
                let behind = d.dot(forward).abs() > d.dot(forward.right()).abs();
                if gap > tolerance && gap <= 1.0 && behind {
                    let field = format!("formations[{b}].front_centre");
                    self.warnings.push(Problem {
                        line: locate(self.text, &field),
                        field,
                        message: format!(
                            "\"{}\" and \"{}\" face the same way {gap:.2}\" apart, one behind the other: as written they are two lines for line_breached (a line's ranks must touch) and a spear behind does not support; move \"{}\" to touch \"{}\" if they are one line",
                            f[a].name, f[b].name, f[b].name, f[a].name
                        ),
                    });
                }
            }
        }
    }

    /// The chariots and their charges: `[chariot]` and `[charge]` for one, or each
    /// `[[chariots]]` table of a turn (its fields named `chariots[i].*` in messages).
    #[allow(clippy::type_complexity)]
    fn chariots(&mut self, raw: &RawScenario) -> Vec<(Option<Chariot>, Option<Charge>)> {
        let read = |check: &mut Self, chariot: &RawChariot, charge: &RawCharge| {
            let c = check.chariot(chariot);
            let move_field = check.renamed("chariot.move");
            let move_ok = !check.problems.iter().any(|p| p.field == move_field);
            let g = check.charge(charge, c.as_ref().filter(|_| move_ok).map(|c| c.move_inches), &raw.formations);
            (c, g)
        };
        match (&raw.chariot, raw.chariots.is_empty()) {
            (Some(chariot), true) => {
                let charge = raw.charge.as_ref().map_or_else(RawCharge::default, |c| RawCharge {
                    pivots: c.pivots.clone(),
                    aim: c.aim.clone(),
                    plan: c.plan.clone(),
                    objective: c.objective,
                    distance: c.distance,
                });
                if raw.turn.is_some() {
                    self.fail("turn", "[turn] orders the chariots of a turn: list them as [[chariots]] tables (one per chariot) instead of [chariot]");
                }
                vec![read(self, chariot, &charge)]
            }
            (Some(_), false) => {
                self.fail(
                    "chariots",
                    "give either [chariot] (one chariot, its path in [charge]) or [[chariots]] (a turn of one or more, each with its own path), not both",
                );
                Vec::new()
            }
            (None, true) => {
                self.fail(
                    "chariot",
                    "this field is missing; give the charging chariot as [chariot] (with [charge]), or a turn of chariots as [[chariots]] tables",
                );
                Vec::new()
            }
            (None, false) => {
                if raw.charge.is_some() {
                    self.fail(
                        "charge",
                        "with [[chariots]] each chariot's path (pivots, aim, plan, objective, distance) goes in its own [[chariots]] table; remove [charge]",
                    );
                }
                if raw.chariots.len() > MAX_TURN_CHARIOTS {
                    self.fail(
                        "chariots",
                        format!("{} chariots listed; a turn holds 1 to {MAX_TURN_CHARIOTS}", raw.chariots.len()),
                    );
                    return Vec::new();
                }
                let mut all = Vec::new();
                for (i, entry) in raw.chariots.iter().enumerate() {
                    self.entry = Some(i);
                    let (chariot, charge) = entry.split();
                    all.push(read(self, &chariot, &charge));
                }
                self.entry = None;
                let sides: Vec<Side> = raw.chariots.iter().map(|c| c.side).collect();
                for (i, side) in sides.iter().enumerate().skip(1) {
                    if *side != sides[0] {
                        self.fail(
                            &format!("chariots[{i}].side"),
                            "every chariot of a turn charges for one side (the player whose Move phase it is); give them all the first chariot's side",
                        );
                    }
                }
                all
            }
        }
    }

    /// `[turn]`: the order (as listed, given, or the best for an objective).
    fn turn(&mut self, raw: Option<&RawTurn>, chariots: usize, army: bool) -> TurnOrder {
        let Some(raw) = raw else { return TurnOrder::Listed };
        let objective = match raw.objective.as_deref() {
            None => None,
            Some(name) => match TurnObjective::ALL.iter().find(|o| o.metric() == name) {
                Some(o) => Some(*o),
                None => {
                    let names: Vec<String> = TurnObjective::ALL.iter().map(|o| format!("\"{}\"", o.metric())).collect();
                    self.fail("turn.objective", format!("unknown objective \"{name}\"; allowed: {}", names.join(", ")));
                    None
                }
            },
        };
        if objective == Some(TurnObjective::ArmyBroken) && !army {
            self.fail("turn.objective", "\"army_broken\" needs the army's size: add [army] models = ...");
        }
        let order = match &raw.order {
            None => TurnOrder::Listed,
            Some(toml::Value::String(s)) if s == "listed" => TurnOrder::Listed,
            Some(toml::Value::String(s)) if s == "best" => {
                if chariots > MAX_BEST_ORDER_CHARIOTS {
                    self.fail(
                        "turn.order",
                        format!(
                            "\"best\" tries every order, for at most {MAX_BEST_ORDER_CHARIOTS} chariots; {chariots} are listed: give the order as a list of their numbers, e.g. [2, 1, 3]"
                        ),
                    );
                }
                TurnOrder::Best(objective.unwrap_or_default())
            }
            Some(toml::Value::String(s)) if s == "adaptive" => {
                self.fail(
                    "turn.order",
                    "\"adaptive\" (choosing the next chariot after seeing the last one's result) is not implemented: use \"best\", which fixes the whole order before the first charge, or give the order as a list",
                );
                TurnOrder::Listed
            }
            Some(toml::Value::Array(items)) => {
                let numbers: Vec<Option<usize>> =
                    items.iter().map(|v| v.as_integer().and_then(|n| usize::try_from(n).ok())).collect();
                let mut seen = vec![false; chariots];
                let mut order = Vec::new();
                for n in &numbers {
                    match n {
                        Some(n) if (1..=chariots).contains(n) && !seen[n - 1] => {
                            seen[n - 1] = true;
                            order.push(n - 1);
                        }
                        _ => {}
                    }
                }
                if order.len() != chariots || numbers.len() != chariots {
                    self.fail(
                        "turn.order",
                        format!(
                            "the order lists each chariot's number (1 to {chariots}, as listed in [[chariots]]) once, e.g. [{}]",
                            (1..=chariots).rev().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")
                        ),
                    );
                    TurnOrder::Listed
                } else {
                    TurnOrder::Given(order)
                }
            }
            Some(_) => {
                self.fail(
                    "turn.order",
                    "allowed: \"listed\" (the default), \"best\", or the chariots' numbers in order, e.g. [2, 1]",
                );
                TurnOrder::Listed
            }
        };
        if objective.is_some() && !matches!(order, TurnOrder::Best(_)) {
            self.fail("turn.objective", "an objective goes with order = \"best\"");
        }
        order
    }

    /// What a turn of several chariots does not follow yet, refused by name.
    fn turn_supported(&mut self, scenario: &Scenario) {
        if !scenario.is_turn() {
            return;
        }
        for (i, f) in scenario.formations.iter().enumerate() {
            if f.profile.chariot || f.hero.as_ref().is_some_and(|h| h.profile.chariot) {
                self.fail(
                    &format!("formations[{i}].profile"),
                    format!("an enemy chariot in a turn of several chariots {NOT_YET}"),
                );
            }
        }
        if scenario.rules.cavalry_passed_when == CavalryPassed::RiderSlainAndMountGone {
            self.fail(
                "rules.cavalry_passed_when",
                format!("\"rider_slain_and_mount_gone\" (a riderless mount standing in the way) in a turn of several chariots {NOT_YET}"),
            );
        }
    }

    /// The chariots of a turn start where they stand, none overlapping another.
    fn chariots_apart(&mut self, scenario: &Scenario) {
        let entries = scenario.entries();
        for (i, a) in entries.iter().enumerate() {
            for (j, b) in entries.iter().enumerate().skip(i + 1) {
                let gap = geometry::footprint_gap(
                    &a.chariot.base.footprint(),
                    &a.chariot.start,
                    &b.chariot.base.footprint(),
                    &b.chariot.start,
                );
                if gap < -1e-6 {
                    self.fail(
                        &format!("chariots[{j}].at"),
                        format!(
                            "chariot {} overlaps chariot {} where they start (by {:.2}\"); move them apart",
                            j + 1,
                            i + 1,
                            -gap
                        ),
                    );
                }
            }
        }
    }

    fn terrain(&mut self, i: usize, raw: &RawTerrain) -> Option<Terrain> {
        let at = |name: &str| format!("terrain[{i}].{name}");
        if raw.name.trim().is_empty() || raw.name.len() > 100 {
            self.fail(&at("name"), "the name must be 1 to 100 characters");
        }
        match raw.kind.as_str() {
            "difficult" => {
                if raw.from.is_some() || raw.to.is_some() {
                    self.fail(&at("kind"), "difficult terrain is an area: give polygon = [[x, y], ...], not from/to");
                }
                let Some(points) = &raw.polygon else {
                    self.missing(&at("polygon"), " as polygon = [[x, y], [x, y], [x, y], ...] (inches)");
                    return None;
                };
                if !(3..=1000).contains(&points.len()) {
                    self.fail(&at("polygon"), format!("{} corners given; an area needs 3 to 1000", points.len()));
                    return None;
                }
                let vertices: Vec<Vec2> = points.iter().map(|p| self.point(&at("polygon"), *p)).collect();
                let doubled_area: f64 = (0..vertices.len())
                    .map(|k| {
                        let (a, b) = (vertices[k], vertices[(k + 1) % vertices.len()]);
                        a.x * b.y - b.x * a.y
                    })
                    .sum();
                if doubled_area.abs() < 1e-6 {
                    self.fail(&at("polygon"), "the corners enclose no area; list them around the outline");
                    return None;
                }
                Some(Terrain::Difficult { name: raw.name.clone(), area: Polygon { vertices } })
            }
            "obstacle" => {
                if raw.polygon.is_some() {
                    self.fail(&at("kind"), "an obstacle is a line: give from = [x, y] and to = [x, y], not a polygon");
                }
                let (Some(from), Some(to)) = (raw.from, raw.to) else {
                    self.missing(&at("from"), " and to, as from = [x, y], to = [x, y] (inches)");
                    return None;
                };
                let (from, to) = (self.point(&at("from"), from), self.point(&at("to"), to));
                if (to - from).length() < 1e-6 {
                    self.fail(&at("to"), "an obstacle needs two different ends");
                    return None;
                }
                Some(Terrain::Obstacle { name: raw.name.clone(), from, to })
            }
            other => {
                self.fail(&at("kind"), format!("unknown kind \"{other}\"; allowed: \"difficult\", \"obstacle\""));
                None
            }
        }
    }

    fn army(&mut self, raw: &RawArmy) -> Army {
        let models = self.whole("army.models", raw.models, 1, 100_000, "models") as u32;
        let casualties = self.whole("army.casualties", raw.casualties, 0, i64::from(models), "casualties") as u32;
        Army { models, casualties }
    }

    fn chariot(&mut self, raw: &RawChariot) -> Option<Chariot> {
        let f = |name: &str| format!("chariot.{name}");
        let library = std::mem::take(&mut self.library.chariots);
        let base_stats = match &raw.profile {
            Some(name) => self.lookup("chariot.profile", "chariot", name, &library),
            None => Some(RawChariotStats::default()),
        };
        self.library.chariots = library;
        let named = raw.profile.is_some();
        let stats = raw.stats_over(base_stats?);
        let hint = if named { "" } else { ", or name a chariot with profile = \"...\"" };
        let name = raw.name.clone().or_else(|| raw.profile.clone()).unwrap_or_default();
        if name.trim().is_empty() || name.len() > 100 {
            self.fail("chariot.name", "the name must be 1 to 100 characters");
        }
        let move_inches = match stats.move_inches {
            Some(m) => self.float(&f("move"), m, 1.0, 24.0, "move (inches)"),
            None => {
                self.missing(&f("move"), hint);
                1.0
            }
        };
        let impact = match &stats.impact {
            Some(i) => {
                let hits = i.hits.parse::<DiceExpr>().map_err(|e| self.fail("chariot.impact.hits", e)).ok();
                let strength = self.int("chariot.impact.strength", i.strength, 1, 10, "strength");
                hits.map(|hits| Impact { hits, strength })
            }
            None => {
                self.missing("chariot.impact", hint);
                None
            }
        };
        let base = match &stats.base {
            Some(b) => self.base("chariot.base", b, false),
            None => {
                self.missing("chariot.base", hint);
                None
            }
        };
        let start = Pose {
            centre: self.point("chariot.at", raw.at),
            facing: match raw.facing {
                Some(f) => self.float("chariot.facing", f, -360.0, 360.0, "the facing (degrees)"),
                None => {
                    let fronts = self.formation_fronts.clone();
                    self.facing_towards("chariot.facing", raw.at, &fronts, "the nearest formation")
                }
            },
        };
        let hero = raw.hero.as_ref().and_then(|h| self.hero(h));
        Some(Chariot {
            name,
            side: raw.side,
            move_inches,
            fight: self.req_int(&f("fight"), stats.fight, 1, 10, "fight", hint),
            strength: self.req_int(&f("strength"), stats.strength, 1, 10, "strength", hint),
            defence: self.req_int(&f("defence"), stats.defence, 1, 10, "defence", hint),
            attacks: self.req_int(&f("attacks"), stats.attacks, 1, 10, "attacks", hint),
            wounds: self.req_int(&f("wounds"), stats.wounds, 1, 20, "wounds", hint),
            courage: self.req_target(&f("courage"), stats.courage.as_ref(), hint),
            impact: impact?,
            base: base?,
            start,
            points: self.points(&f("points"), stats.points.unwrap_or(0)),
            hero,
            hand_and_a_half: stats.hand_and_a_half.unwrap_or(false),
        })
    }

    fn hero(&mut self, raw: &RawHero) -> Option<Hero> {
        let f = |name: &str| format!("chariot.hero.{name}");
        let library = std::mem::take(&mut self.library.heroes);
        let base = match &raw.profile {
            Some(name) => self.lookup(&f("profile"), "hero", name, &library),
            None => Some(RawHero::default()),
        };
        self.library.heroes = library;
        let hint = if raw.profile.is_some() { "" } else { ", or name a hero with profile = \"...\"" };
        let h = raw.over(base?);
        let name = h.name.clone().or_else(|| raw.profile.clone()).unwrap_or_else(|| "Hero".to_string());
        Some(Hero {
            name,
            fight: self.req_int(&f("fight"), h.fight, 1, 10, "fight", hint),
            strength: self.req_int(&f("strength"), h.strength, 1, 10, "strength", hint),
            defence: self.req_int(&f("defence"), h.defence, 1, 10, "defence", hint),
            attacks: self.req_int(&f("attacks"), h.attacks, 0, 10, "attacks", hint),
            wounds: self.req_int(&f("wounds"), h.wounds, 1, 20, "wounds", hint),
            courage: self.req_target(&f("courage"), h.courage.as_ref(), hint),
            might: self.int(&f("might"), h.might.unwrap_or(0), 0, 6, "might"),
            will: self.int(&f("will"), h.will.unwrap_or(0), 0, 30, "will"),
            fate: self.int(&f("fate"), h.fate.unwrap_or(0), 0, 6, "fate"),
            might_policy: h.might_policy.unwrap_or_default(),
            fate_policy: h.fate_policy.unwrap_or_default(),
            might_on_saves: h.might_on_saves.unwrap_or(true),
            points: self.points(&f("points"), h.points.unwrap_or(0)),
            hand_and_a_half: h.hand_and_a_half.unwrap_or(false),
        })
    }

    fn charge(&mut self, raw: &RawCharge, move_inches: Option<f64>, formations: &[RawFormation]) -> Option<Charge> {
        let given = [raw.pivots.is_some(), raw.aim.is_some(), raw.plan.is_some()].iter().filter(|g| **g).count();
        if given > 1 {
            self.fail("charge", "give only one of pivots, aim or plan: they are different ways of choosing the pivots");
            return None;
        }
        if raw.objective.is_some() && raw.plan.is_none() {
            self.fail("charge.objective", "an objective goes with plan = \"best\"");
        }
        let distance = raw.distance.map(|d| {
            let d = match move_inches {
                Some(m) => self.float("charge.distance", d, 0.0, m, "the distance driven (inches, at most the Move)"),
                None => d,
            };
            if d <= 0.0 {
                self.fail(
                    "charge.distance",
                    "a Chariot Charge drives more than 0\" (a chariot that does not charge only pivots: leave it out of the scenario)",
                );
            }
            d
        });
        if let Some(plan) = &raw.plan {
            if plan != "best" {
                self.fail(
                    "charge.plan",
                    format!("unknown plan \"{plan}\"; allowed: \"best\" (or give pivots or aim instead)"),
                );
                return None;
            }
            return Some(Charge { path: PathChoice::Best(raw.objective.unwrap_or_default()), distance });
        }
        if let Some(aim) = &raw.aim {
            let path = match aim {
                toml::Value::String(name) => match formations.iter().position(|f| &f.name == name) {
                    Some(i) => PathChoice::AimAtFormation(i),
                    None => {
                        let names: Vec<String> = formations.iter().map(|f| format!("\"{}\"", f.name)).collect();
                        self.fail(
                            "charge.aim",
                            format!("no formation is named \"{name}\"; formations: {}", names.join(", ")),
                        );
                        return None;
                    }
                },
                toml::Value::Array(xy) if xy.len() == 2 => {
                    let coord = |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
                    match (coord(&xy[0]), coord(&xy[1])) {
                        (Some(x), Some(y)) => PathChoice::AimAt(self.point("charge.aim", [x, y])),
                        _ => {
                            self.fail("charge.aim", "aim at a point [x, y] in inches, or a formation by name");
                            return None;
                        }
                    }
                }
                _ => {
                    self.fail("charge.aim", "aim at a point [x, y] in inches, or a formation by name");
                    return None;
                }
            };
            return Some(Charge { path, distance });
        }
        let raw_pivots = raw.pivots.clone().unwrap_or_default();
        let mut pivots = Vec::with_capacity(raw_pivots.len());
        for (i, p) in raw_pivots.iter().enumerate() {
            pivots.push(self.float(&format!("charge.pivots[{i}]"), *p, -45.0, 45.0, "a pivot (degrees)"));
        }
        if let Some(m) = move_inches {
            let chances = 1 + (m / 4.0 + 1e-9).floor() as usize;
            if pivots.len() > chances {
                // Allowed (a sweep over the Move keeps its pivot list), but the pivots
                // beyond the Move never happen: said, not refused.
                let field = self.renamed("charge.pivots");
                self.warnings.push(Problem {
                    line: locate(self.text, &field),
                    field,
                    message: format!(
                        "{} pivots given, but a Move of {m}\" allows {chances} (one at the start and one after each full \
                         4\" driven); {} never reached",
                        pivots.len(),
                        match pivots.len() - chances {
                            1 => "the last one is".to_string(),
                            n => format!("the last {n} are"),
                        }
                    ),
                });
            }
        }
        Some(Charge { path: PathChoice::Pivots(pivots), distance })
    }

    /// A spear or pike supports only a friend it touches: a formation given spears or pikes
    /// in which no model touches another model is refused (it would never support).
    fn supporters_touch(&mut self, scenario: &Scenario) {
        let tolerance = crate::mesbg::plan::support::BASE_CONTACT_MM / geometry::MM_PER_INCH;
        for (fi, f) in scenario.formations.iter().enumerate() {
            if !f.profile.supports() {
                continue;
            }
            let touches_someone = f.centres.iter().enumerate().any(|(mi, c)| {
                scenario.formations.iter().enumerate().any(|(gi, g)| {
                    g.centres.iter().enumerate().any(|(ni, d)| {
                        (gi, ni) != (fi, mi)
                            && (*c - *d).length() <= f.disc_at(*c).radius + g.disc_at(*d).radius + tolerance
                            && f.disc_at(*c).distance_to(&g.disc_at(*d)) <= tolerance
                    })
                })
            });
            if !touches_someone {
                let which = if f.profile.pike { "pike" } else { "spear" };
                self.fail(
                    &format!("formations[{fi}].profile.{which}"),
                    format!(
                        "no model of \"{}\" touches another model, so its {which}s can never support anyone (gap_mm {}): close the gap to 0, or remove {which} = true",
                        f.name, f.gap_mm
                    ),
                );
            }
        }
    }

    /// Models may touch but not overlap the chariot or each other; the chariot may not
    /// start touching an obstacle.
    fn overlaps(&mut self, scenario: &Scenario) {
        let footprint = scenario.chariot.base.footprint();
        let pose = scenario.chariot.start;
        for (i, t) in scenario.terrain.iter().enumerate() {
            if let Terrain::Obstacle { name, from, to } = t
                && geometry::footprint_segment_distance(&footprint, &pose, *from, *to) <= geometry::EPSILON
            {
                self.fail(
                    &format!("terrain[{i}].from"),
                    format!("the chariot starts touching the obstacle \"{name}\"; move one of them"),
                );
            }
        }
        let tolerance = 1e-6;
        let mut discs: Vec<(usize, usize, Disc)> = Vec::new();
        for (fi, f) in scenario.formations.iter().enumerate() {
            for (mi, c) in f.centres.iter().enumerate() {
                let disc = f.disc_at(*c);
                let depth = -disc.distance_from(&footprint, &pose);
                if depth > tolerance {
                    self.fail(
                        &format!("formations[{fi}].front_centre"),
                        format!(
                            "model {} of \"{}\" at ({:.2}, {:.2}) overlaps the chariot's starting base by {:.2}\"; move the formation or the chariot apart",
                            mi + 1,
                            f.name,
                            c.x,
                            c.y,
                            depth
                        ),
                    );
                    break;
                }
                discs.push((fi, mi, disc));
            }
        }
        // Sort by x so that only neighbours in x are compared.
        discs.sort_by(|a, b| a.2.centre.x.total_cmp(&b.2.centre.x));
        let max_r = discs.iter().map(|d| d.2.radius).fold(0.0, f64::max);
        let mut reported = std::collections::BTreeSet::new();
        for (k, (fa, ma, a)) in discs.iter().enumerate() {
            for (fb, mb, b) in discs[k + 1..].iter() {
                if b.centre.x - a.centre.x > 2.0 * max_r {
                    break;
                }
                if a.radius + b.radius - (a.centre - b.centre).length() <= tolerance {
                    continue;
                }
                let depth = -a.distance_to(b);
                if depth > tolerance && reported.insert((*fa.min(fb), *fa.max(fb))) {
                    let (fi, other) = if fa >= fb { (*fa, *fb) } else { (*fb, *fa) };
                    let fa_name = &scenario.formations[*fa].name;
                    let fb_name = &scenario.formations[*fb].name;
                    self.fail(
                        &format!("formations[{fi}].front_centre"),
                        format!(
                            "model {} of \"{fa_name}\" overlaps model {} of \"{fb_name}\" by {depth:.2}\"{}; models may touch but not overlap",
                            ma + 1,
                            mb + 1,
                            if fi == other { " (check gap_mm and the base size)" } else { "" }
                        ),
                    );
                }
            }
        }
    }
}
