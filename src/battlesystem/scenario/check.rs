//! Validation of a BATTLESYSTEM scenario as written: every field checked and every problem
//! recorded with its field and line.

use super::*;

impl Checker<'_> {
    pub(super) fn fail(&mut self, field: &str, message: impl fmt::Display) {
        crate::input::record(self.text, &mut self.problems, field, message);
    }

    pub(super) fn whole(&mut self, field: &str, value: i64, lo: i64, hi: i64, what: &str) -> u32 {
        if (lo..=hi).contains(&value) {
            value as u32
        } else {
            self.fail(field, format!("{what} {value} is out of range; allowed {lo} to {hi}"));
            lo.max(0) as u32
        }
    }

    pub(super) fn float(&mut self, field: &str, value: f64, lo: f64, hi: f64, what: &str) -> f64 {
        crate::input::checked_float(self.text, &mut self.problems, field, value, (lo, hi), what)
    }

    fn die(&mut self, field: &str, text: &str) -> AttackDie {
        AttackDie::parse(text).unwrap_or_else(|| {
            self.fail(
                field,
                format!("`{text}` is not an attack die; use \"d4\", \"d6\", \"d8\", \"d10\", \"d12\" or \"2d10\""),
            );
            AttackDie::D6
        })
    }

    pub(super) fn scenario(&mut self, raw: RawBattlesystem, file: &str) -> Option<BattlesystemScenario> {
        let (trials, seed) = crate::input::header_fields(
            self.text,
            &mut self.problems,
            &raw.title,
            raw.question.as_deref(),
            raw.trials,
            raw.seed,
        );
        let board = match &raw.board {
            None => [48.0, 48.0],
            Some(b) => [
                self.float("board.width", b.width, 6.0, MAX_BOARD_INCHES, "the board width (inches)"),
                self.float("board.depth", b.depth, 6.0, MAX_BOARD_INCHES, "the board depth (inches)"),
            ],
        };
        let (rules, figure_base) = self.rules(&raw.rules);
        if raw.units.is_empty() {
            self.fail("units", "a BATTLESYSTEM scenario needs [[units]]; give at least the unit that charges or routs");
        }
        if raw.units.len() > MAX_UNITS {
            self.fail("units", format!("{} units; at most {MAX_UNITS} are allowed", raw.units.len()));
            return None;
        }
        let units: Vec<Unit> =
            raw.units.iter().enumerate().filter_map(|(i, u)| self.unit(i, u, figure_base, board)).collect();
        let all_units = units.len() == raw.units.len();
        if all_units {
            self.names_and_overlaps(&units);
        }
        let action = match (&raw.charge, &raw.rout) {
            (Some(_), Some(_)) => {
                self.fail("rout", "give either [charge] or [rout], not both (one question per scenario)");
                None
            }
            (None, None) => {
                self.fail("charge", "this field is missing; give [charge] (unit, target) or [rout] (unit)");
                None
            }
            (Some(c), None) if all_units => self.charge(c, &units, &rules),
            (None, Some(r)) if all_units => self.rout(r, &units),
            _ => None,
        };
        let scenario = BattlesystemScenario {
            file: file.to_string(),
            title: raw.title,
            question: raw.question,
            trials,
            seed,
            board,
            hits_table: rules.attack.hits_table.clone(),
            armour_roll: rules.attack.armour,
            units,
            rules,
            action: action?,
        };
        Some(scenario)
    }

    fn rules(&mut self, raw: &RawRules) -> (BattlesystemRules, [f64; 2]) {
        let rules = self.rule_options(raw);
        if rules.charge_doubles == ChargeDoubles::Platform && !rules.platform_attacks_alone {
            self.fail(
                "rules.charge_doubles",
                "\"platform\" doubles the platform's own attack dice, but with platform_attacks_alone = false the \
                 platform has none (its roll is added to the crew's): set platform_attacks_alone = true, or charge_doubles \
                 to \"crew\" or \"both\"",
            );
        }
        let base = match raw.figure_base {
            None => [1.0, 1.0],
            Some([w, d]) => [
                self.float("rules.figure_base", w, 0.25, 12.0, "the base width (inches)"),
                self.float("rules.figure_base", d, 0.25, 12.0, "the base depth (inches)"),
            ],
        };
        (rules, base)
    }

    fn unit(&mut self, i: usize, raw: &RawUnit, figure_base: [f64; 2], board: [f64; 2]) -> Option<Unit> {
        let f = |name: &str| format!("units[{i}].{name}");
        let problems_before = self.problems.len();
        if raw.name.trim().is_empty() || raw.name.len() > 60 {
            self.fail(&f("name"), "a unit's name must be 1 to 60 characters");
        }
        let figures = self.whole(&f("figures"), raw.figures, 1, MAX_FIGURES, "the number of figures");
        let points = self.whole(&f("points"), raw.points, 0, 100_000, "points per figure");
        let frontage = match raw.frontage {
            None => figures.min(10),
            Some(n) => self.whole(&f("frontage"), n, 1, i64::from(figures.max(1)), "the frontage (figures across)"),
        };
        let base = match raw.base {
            None => figure_base,
            Some([w, d]) => [
                self.float(&f("base"), w, 0.25, 12.0, "the base width (inches)"),
                self.float(&f("base"), d, 0.25, 12.0, "the base depth (inches)"),
            ],
        };
        let x = self.float(&f("at"), raw.at[0], 0.0, board[0], "the x coordinate (inches, on the board)");
        let y = self.float(&f("at"), raw.at[1], 0.0, board[1], "the y coordinate (inches, on the board)");
        let facing = self.float(&f("facing"), raw.facing, -360.0, 360.0, "the facing (degrees clockwise from +y)");
        let s = &raw.stats;
        let stats = Stats {
            ad: self.die(&f("stats.ad"), &s.ad),
            ar: self.whole(&f("stats.ar"), s.ar, 0, 10, "AR"),
            hits: self.whole(&f("stats.hits"), s.hits, 1, 50, "Hits"),
            ml: self.whole(&f("stats.ml"), s.ml, 2, 20, "ML"),
            mv: self.float(&f("stats.mv"), s.mv, 0.0, 48.0, "MV (inches)"),
        };
        if raw.crew.len() > MAX_CREW_GROUPS {
            self.fail(&f("crew"), format!("{} crew groups; at most {MAX_CREW_GROUPS} are allowed", raw.crew.len()));
            return None;
        }
        let crew: Vec<Crew> = raw.crew.iter().enumerate().map(|(c, cr)| self.crew(i, c, cr, stats.ar)).collect();
        if !crew.is_empty() && !crew.iter().any(|c| c.role == Role::Rider) {
            self.fail(
                &f("crew"),
                "a battle platform needs at least one figure with role = \"rider\" to control it; add one",
            );
        }
        let ranks = figures.div_ceil(frontage.max(1));
        let block = Block::new(
            Vec2::new(x, y),
            facing.rem_euclid(360.0),
            f64::from(frontage) * base[0],
            f64::from(ranks) * base[1],
        );
        if self.problems.len() == problems_before && !block.on_board(board[0], board[1]) {
            self.fail(
                &f("at"),
                format!(
                    "the unit's block ({:.1}\" wide, {:.1}\" deep) reaches off the {}\" x {}\" board; move it inwards",
                    block.width, block.depth, board[0], board[1]
                ),
            );
        }
        (self.problems.len() == problems_before).then(|| Unit {
            key: slug_of(&raw.name, "unit").replace('-', "_"),
            name: raw.name.trim().to_string(),
            side: raw.side,
            figures,
            frontage,
            base,
            block,
            stats,
            crew,
            beast: raw.beast,
            points,
        })
    }

    fn crew(&mut self, unit: usize, i: usize, raw: &RawCrew, platform_ar: u32) -> Crew {
        let f = |name: &str| format!("units[{unit}].crew[{i}].{name}");
        if raw.name.trim().is_empty() || raw.name.len() > 60 {
            self.fail(&f("name"), "a crew group's name must be 1 to 60 characters");
        }
        let mut bands = Vec::new();
        for (b, [from, to, multiplier]) in raw.range_bands.iter().copied().enumerate() {
            let field = format!("units[{unit}].crew[{i}].range_bands[{b}]");
            let from = self.float(&field, from, 0.0, 96.0, "the nearest range (inches)");
            let to = self.float(&field, to, 0.0, 96.0, "the farthest range (inches)");
            let m = self.float(&field, multiplier, 0.0, 4.0, "the dice multiplier");
            let hundredths = (m * 100.0).round();
            if (hundredths - m * 100.0).abs() > 1e-6 {
                self.fail(&field, format!("the multiplier {m} has more than two decimals; round it (e.g. 0.5, 1.25)"));
            }
            if to <= from {
                self.fail(&field, "a band is [from, to, multiplier] with to above from");
            }
            bands.push(RangeBand { from, to, hundredths: hundredths as u32 });
        }
        match raw.role {
            Role::Archer if bands.is_empty() => self.fail(
                &f("range_bands"),
                "archers need range bands [[from, to, multiplier], ...] in inches, e.g. [[0, 7, 1.0], [7, 14, 0.5]]",
            ),
            Role::Rider | Role::Fighter if !bands.is_empty() => {
                self.fail(&f("range_bands"), "only role = \"archer\" crews shoot; remove the bands or change the role")
            }
            _ => {}
        }
        Crew {
            name: raw.name.trim().to_string(),
            role: raw.role,
            count: self.whole(&f("count"), raw.count, 1, 12, "the figures per platform"),
            ad: self.die(&f("ad"), &raw.ad),
            ar: match raw.ar {
                Some(ar) => self.whole(&f("ar"), ar, 0, 10, "AR"),
                None => platform_ar,
            },
            hits: self.whole(&f("hits"), raw.hits, 1, 50, "Hits"),
            bands,
        }
    }

    fn names_and_overlaps(&mut self, units: &[Unit]) {
        for (i, a) in units.iter().enumerate() {
            for (j, b) in units.iter().enumerate().skip(i + 1) {
                if a.name == b.name || a.key == b.key {
                    self.fail(
                        &format!("units[{j}].name"),
                        format!("units[{i}] is already named \"{}\" (or alike); unit names must differ", a.name),
                    );
                } else if a.block.overlaps(&b.block) {
                    self.fail(
                        &format!("units[{j}].at"),
                        format!(
                            "\"{}\" overlaps \"{}\"; move one of them so their blocks do not overlap",
                            b.name, a.name
                        ),
                    );
                }
            }
        }
    }

    fn find(&mut self, field: &str, name: &str, units: &[Unit]) -> Option<usize> {
        let found = units.iter().position(|u| u.name == name.trim());
        if found.is_none() {
            let known: Vec<String> = units.iter().map(|u| format!("\"{}\"", u.name)).collect();
            self.fail(field, format!("no unit is named \"{name}\"; units: {}", known.join(", ")));
        }
        found
    }

    fn charge(&mut self, raw: &RawCharge, units: &[Unit], rules: &BattlesystemRules) -> Option<Action> {
        let unit = self.find("charge.unit", &raw.unit, units);
        let target = self.find("charge.target", &raw.target, units);
        let (unit, target) = (unit?, target?);
        let (u, t) = (&units[unit], &units[target]);
        if !u.is_platform() {
            self.fail(
                "charge.unit",
                format!("\"{}\" carries no crew; a charge here is a battle platform's (give the unit crew)", u.name),
            );
            return None;
        }
        if rules.driver_only == DriverOnly::Refused && u.fighting_crew_per_platform() == 0 {
            self.fail(
                "charge.unit",
                format!(
                    "\"{}\" carries only the one rider each platform needs, so nobody aboard fights, and [rules] \
                     driver_only = \"refused\" refuses such a charge (the default \"platform_ad\" lets the platform \
                     attack with its own AD); add fighting crew",
                    u.name
                ),
            );
            return None;
        }
        if u.side == t.side || unit == target {
            self.fail("charge.target", format!("\"{}\" is on the charger's side; charge an enemy unit", t.name));
            return None;
        }
        let ahead = Vec2::heading(u.block.facing);
        let gap = match board::first_contact(&u.block, ahead, 1000.0, &t.block) {
            Some(gap) if gap <= u.stats.mv + 1e-9 => gap,
            Some(gap) => {
                self.fail(
                    "charge.target",
                    format!(
                        "\"{}\" is {gap:.1}\" ahead of the charger, beyond its MV of {}\"; move them closer",
                        t.name, u.stats.mv
                    ),
                );
                return None;
            }
            None => {
                self.fail(
                    "charge.target",
                    format!(
                        "\"{}\" is not in the path of \"{}\" (facing {} degrees); turn the charger or move the target",
                        t.name, u.name, u.block.facing
                    ),
                );
                return None;
            }
        };
        for (i, other) in units.iter().enumerate().filter(|(i, _)| *i != unit && *i != target) {
            if board::first_contact(&u.block, ahead, gap, &other.block).is_some_and(|d| d < gap) {
                self.fail(
                    "charge.target",
                    format!("\"{}\" (units[{i}]) stands between the charger and its target; move it", other.name),
                );
                return None;
            }
        }
        let shooters = u.crew.iter().any(|c| c.role == Role::Archer);
        let volleys = match raw.volleys {
            None => u32::from(shooters) * 2,
            Some(v) => self.whole("charge.volleys", v, 0, 2, "volleys"),
        };
        if volleys > 0 && !shooters {
            self.fail("charge.volleys", "the charger has no archers aboard; remove volleys or add an archer crew");
        }
        Some(Action::Charge { unit, target, volleys, gap })
    }

    fn rout(&mut self, raw: &RawRout, units: &[Unit]) -> Option<Action> {
        let unit = self.find("rout.unit", &raw.unit, units)?;
        if !units[unit].beast {
            self.fail(
                "rout.unit",
                format!(
                    "\"{}\" is not a battle beast: only elephants and other large beasts (beast = true on the unit) rout in a \
                     d12 clock direction; an ordinary unit's rout towards its own edge is not simulated, so it is refused",
                    units[unit].name
                ),
            );
            return None;
        }
        if units[unit].stats.mv <= 0.0 {
            self.fail(&format!("units[{unit}].stats.mv"), "a routing unit needs MV above 0");
        }
        if let Some((i, other)) = units.iter().enumerate().find(|(i, u)| *i != unit && u.beast) {
            self.fail(
                &format!("units[{i}].beast"),
                format!(
                    "\"{}\" is a unit of battle beasts too: struck by the routing beasts it would rout by its own d12, \
                     and chained routs are not built yet, so the scenario is refused rather than pushing it as if it \
                     were infantry (remove beast = true from it, or remove the unit)",
                    other.name
                ),
            );
            return None;
        }
        let first_hour = raw.first_hour.map(|h| self.whole("rout.first_hour", h, 1, 12, "the clock hour"));
        Some(Action::Rout { unit, first_hour })
    }
}
