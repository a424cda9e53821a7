//! Validation of a scenario as written: every field checked, every problem recorded with
//! its field and line, the profile library looked up, the geometry checked for overlaps.

use super::*;

impl Checker<'_> {
    fn fail(&mut self, field: &str, message: impl fmt::Display) {
        record(self.text, &mut self.problems, field, message);
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
                self.fail(field, format!("no {kind} profile is named \"{name}\"; known: {}", known.join(", ")));
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
        let chariot = self.chariot(&raw.chariot);
        let move_ok = !self.problems.iter().any(|p| p.field == "chariot.move");
        let charge =
            self.charge(&raw.charge, chariot.as_ref().filter(|_| move_ok).map(|c| c.move_inches), &raw.formations);
        let side = chariot.as_ref().map_or(Side::Good, |c| c.side.opponent());
        let formations: Vec<Formation> =
            raw.formations.iter().enumerate().filter_map(|(i, f)| self.formation(i, f, side)).collect();
        let total: usize = formations.iter().map(|f| f.centres.len()).sum();
        if total > MAX_MODELS {
            self.fail("formations", format!("{total} models in all; at most {MAX_MODELS} are allowed"));
        }
        let d = MesbgRules::default();
        let r = &raw.rules;
        let rules = MesbgRules {
            prone_counts_as_trapped: r.prone_counts_as_trapped.unwrap_or(d.prone_counts_as_trapped),
            strike_split: r.strike_split.unwrap_or(d.strike_split),
            strike_allocation: r.strike_allocation.unwrap_or(d.strike_allocation),
            cavalry_passed_when: r.cavalry_passed_when.unwrap_or(d.cavalry_passed_when),
            fate: r.fate.unwrap_or(d.fate),
            might_on_fate: r.might_on_fate.unwrap_or(d.might_on_fate),
            break_point: r.break_point.unwrap_or(d.break_point),
            difficult_terrain_measure: r.difficult_terrain_measure.unwrap_or(d.difficult_terrain_measure),
            supporter_fight_counts: r.supporter_fight_counts.unwrap_or(d.supporter_fight_counts),
            banner_reroll: r.banner_reroll.unwrap_or(d.banner_reroll),
        };
        let scenario = Scenario {
            file: file.to_string(),
            title: raw.title,
            question: raw.question,
            system: system?,
            trials,
            seed,
            chariot: chariot?,
            charge: charge?,
            formations,
            rules,
            army,
            terrain,
        };
        if raw.formations.len() == scenario.formations.len() && total <= MAX_MODELS {
            self.overlaps(&scenario);
            self.supporters_touch(&scenario);
        }
        Some(scenario)
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
            facing: self.float("chariot.facing", raw.facing, -360.0, 360.0, "the facing (degrees)"),
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
            will: self.int(&f("will"), h.will.unwrap_or(0), 0, 6, "will"),
            fate: self.int(&f("fate"), h.fate.unwrap_or(0), 0, 6, "fate"),
            might_policy: h.might_policy.unwrap_or_default(),
            fate_policy: h.fate_policy.unwrap_or_default(),
            might_on_saves: h.might_on_saves.unwrap_or(true),
            points: self.points(&f("points"), h.points.unwrap_or(0)),
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
        if let Some(plan) = &raw.plan {
            if plan != "best" {
                self.fail(
                    "charge.plan",
                    format!("unknown plan \"{plan}\"; allowed: \"best\" (or give pivots or aim instead)"),
                );
                return None;
            }
            return Some(Charge { path: PathChoice::Best(raw.objective.unwrap_or_default()) });
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
            return Some(Charge { path });
        }
        let raw_pivots = raw.pivots.clone().unwrap_or_default();
        let mut pivots = Vec::with_capacity(raw_pivots.len());
        for (i, p) in raw_pivots.iter().enumerate() {
            pivots.push(self.float(&format!("charge.pivots[{i}]"), *p, -45.0, 45.0, "a pivot (degrees)"));
        }
        if let Some(m) = move_inches {
            let chances = 1 + (m / 4.0 + 1e-9).floor() as usize;
            if pivots.len() > chances {
                self.fail(
                    "charge.pivots",
                    format!(
                        "{} pivots given, but a Move of {m}\" allows {chances}: one at the start and one after each full 4\" driven",
                        pivots.len()
                    ),
                );
            }
        }
        Some(Charge { path: PathChoice::Pivots(pivots) })
    }

    fn formation(&mut self, i: usize, raw: &RawFormation, enemy: Side) -> Option<Formation> {
        let at = |name: &str| format!("formations[{i}].{name}");
        if raw.name.trim().is_empty() || raw.name.len() > 100 {
            self.fail(&at("name"), "the name must be 1 to 100 characters");
        }
        let count = self.whole(&at("count"), raw.count, 1, MAX_MODELS as i64, "count");
        let ranks = self.whole(&at("ranks"), raw.ranks, 1, count.max(1) as i64, "ranks");
        let gap_mm = self.float(&at("gap_mm"), raw.gap_mm, 0.0, 200.0, "gap_mm");
        let front_centre = self.point(&at("front_centre"), raw.front_centre);
        let facing = self.float(&at("facing"), raw.facing, -360.0, 360.0, "the facing (degrees)");
        let (profile, base_mm) = self.model_profile(&at("profile"), &raw.profile)?;
        let side = raw.side.unwrap_or(enemy);
        if side != enemy {
            self.fail(&at("side"), "friendly formations in the chariot's path are not supported yet; only the chariot's enemies may stand on the board");
        }
        let base = match (&raw.base, base_mm) {
            (Some(b), _) => self.base(&at("base"), b, true),
            (None, Some(d)) => Some(Base::Round { diameter_mm: d }),
            (None, None) => {
                self.missing(&at("base"), " as base = { round_mm = 25 } or base = { oval_mm = [width, length] }");
                None
            }
        };
        let (diameter_mm, oval_mm) = match base? {
            Base::Round { diameter_mm } => (diameter_mm, None),
            Base::Oval { width_mm, length_mm } => (width_mm, Some([width_mm, length_mm])),
            Base::Rect { .. } => return None,
        };
        let [width, length] = oval_mm.unwrap_or([diameter_mm, diameter_mm]);
        let centres = geometry::formation_centres(
            count,
            ranks,
            [width / geometry::MM_PER_INCH, length / geometry::MM_PER_INCH],
            gap_mm / geometry::MM_PER_INCH,
            front_centre,
            facing,
        );
        if oval_mm.is_some() && profile.chariot {
            self.fail(
                &at("base.oval_mm"),
                format!("an enemy chariot on an oval base {NOT_YET} (Immovable Object compares round bases): give it round_mm"),
            );
        }
        let banner = self.banner(i, raw, count, ranks);
        let hero = self.placed_hero(i, raw, count, ranks, oval_mm.map_or(diameter_mm, |_| f64::NAN), &profile, banner);
        if banner.is_some() && profile.shield && profile.pike {
            self.fail(
                &at("banner"),
                format!("a pike with a shield carrying the banner would roll at -2, which {NOT_YET}: give the formation no shields, or no banner"),
            );
        }
        Some(Formation {
            name: raw.name.clone(),
            side,
            base_mm: diameter_mm,
            oval_mm,
            centres,
            ranks,
            facing,
            front_centre,
            gap_mm,
            profile,
            banner,
            hero,
        })
    }

    /// A model profile from a library name or an inline table at `field` (e.g.
    /// `formations[0].profile`), with its base diameter when it gives one.
    fn model_profile(&mut self, field: &str, value: &toml::Value) -> Option<(Profile, Option<f64>)> {
        let pf = |name: &str| format!("{field}.{name}");
        let (p, named) = match value {
            toml::Value::String(name) => {
                let library = std::mem::take(&mut self.library.models);
                let found = self.lookup(field, "model", name, &library);
                self.library.models = library;
                (found?, true)
            }
            toml::Value::Table(table) => match RawProfile::deserialize(toml::Value::Table(table.clone())) {
                Ok(p) => (p, false),
                Err(e) => {
                    self.fail(field, plain_words(e.message()));
                    return None;
                }
            },
            _ => {
                self.fail(
                    field,
                    "give a profile name like \"Warrior of Minas Tirith\" or a table like { fight = 4, ... }",
                );
                return None;
            }
        };
        let hint = if named { "" } else { ", or name a profile like profile = \"Warrior of Minas Tirith\"" };
        let mount = match &p.mount {
            None => None,
            Some(value) => match RawMount::deserialize(value.clone()) {
                Ok(m) => Some(Mount {
                    defence: self.int(&pf("mount.defence"), m.defence, 1, 10, "defence"),
                    wounds: self.int(&pf("mount.wounds"), m.wounds, 1, 20, "wounds"),
                    attacks: self.int(&pf("mount.attacks"), m.attacks, 0, 10, "attacks"),
                    fight: self.int(&pf("mount.fight"), m.fight, 0, 10, "fight"),
                    strength: self.int(&pf("mount.strength"), m.strength, 1, 10, "strength"),
                }),
                Err(e) => {
                    self.fail(&pf("mount"), plain_words(e.message()));
                    None
                }
            },
        };
        let profile = Profile {
            fight: self.req_int(&pf("fight"), p.fight, 1, 10, "fight", hint),
            strength: self.req_int(&pf("strength"), p.strength, 1, 10, "strength", hint),
            defence: self.req_int(&pf("defence"), p.defence, 1, 10, "defence", hint),
            attacks: self.req_int(&pf("attacks"), p.attacks, 0, 10, "attacks", hint),
            wounds: self.req_int(&pf("wounds"), p.wounds, 1, 20, "wounds", hint),
            courage: self.req_target(&pf("courage"), p.courage.as_ref(), hint),
            points: self.points(&pf("points"), p.points.unwrap_or(0)),
            monster: p.monster.unwrap_or(false),
            chariot: p.chariot.unwrap_or(false),
            mount,
            spear: p.spear.unwrap_or(false),
            pike: p.pike.unwrap_or(false),
            shield: p.shield.unwrap_or(false),
            hero: None,
        };
        if profile.shield && !profile.pike {
            self.fail(&pf("shield"), "shield = true only changes a pike's duel dice (-1); a shield's Defence is already in the profile: remove shield, or add pike = true");
        }
        if profile.mount.is_some() && (profile.monster || profile.chariot) {
            self.fail(&pf("mount"), "a cavalry model cannot also be a monster or a chariot here");
        }
        if profile.spear && profile.pike {
            self.fail(&pf("pike"), "a model carries a spear or a pike, not both; keep one");
        }
        if profile.supports() && (profile.mount.is_some() || profile.monster || profile.chariot) {
            let which = if profile.pike { "pike" } else { "spear" };
            self.fail(
                &pf(which),
                format!("only Infantry support with a {which}; a cavalry model, Monster or chariot cannot: remove {which} = true"),
            );
        }
        let hero = self.heroism(field, &p, &profile);
        let profile = Profile { hero, ..profile };
        let base_mm = p.base_mm.map(|d| self.float(&pf("base_mm"), d, 10.0, 300.0, "the base diameter (mm)"));
        Some((profile, base_mm))
    }

    /// Might, Will and Fate of a profile: all three make it a Hero; the policies need them.
    fn heroism(&mut self, field: &str, p: &RawProfile, profile: &Profile) -> Option<Heroism> {
        let pf = |name: &str| format!("{field}.{name}");
        let given = [p.might.is_some(), p.will.is_some(), p.fate.is_some()];
        if given.iter().all(|g| !g) {
            for (name, set) in [
                ("might_policy", p.might_policy.is_some()),
                ("fate_policy", p.fate_policy.is_some()),
                ("might_on_saves", p.might_on_saves.is_some()),
            ] {
                if set {
                    self.fail(
                        &pf(name),
                        format!("{name} is for a Hero: give the profile might, will and fate, or remove {name}"),
                    );
                }
            }
            return None;
        }
        for (name, value) in [("might", p.might), ("will", p.will), ("fate", p.fate)] {
            if value.is_none() {
                self.missing(&pf(name), " (a Hero has Might, Will and Fate: give all three, 0 where he has none)");
            }
        }
        if profile.mount.is_some() {
            self.fail(
                &pf("might"),
                format!(
                    "a mounted enemy Hero {NOT_YET}: fight him on foot (remove mount) or remove might, will and fate"
                ),
            );
        }
        if profile.chariot {
            self.fail(&pf("might"), format!("an enemy chariot's Hero {NOT_YET}: remove might, will and fate"));
        }
        if profile.supports() {
            let which = if profile.pike { "pike" } else { "spear" };
            self.fail(
                &pf(which),
                format!(
                    "a Hero supporting with a {which} {NOT_YET} (his Might on a supporting die): remove {which} = true"
                ),
            );
        }
        Some(Heroism {
            might: self.int(&pf("might"), p.might.unwrap_or(0), 0, 6, "might"),
            will: self.int(&pf("will"), p.will.unwrap_or(0), 0, 6, "will"),
            fate: self.int(&pf("fate"), p.fate.unwrap_or(0), 0, 6, "fate"),
            might_policy: p.might_policy.unwrap_or_default(),
            fate_policy: p.fate_policy.unwrap_or_default(),
            might_on_saves: p.might_on_saves.unwrap_or(true),
        })
    }

    /// The Hero placed among a formation's warriors: `hero = { profile = ..., at = [rank,
    /// file] }`, by default the middle of the front rank; his profile must make him a Hero,
    /// stand on the formation's base (`diameter_mm`, NaN for an oval base) and not take the
    /// banner bearer's place.
    #[allow(clippy::too_many_arguments)]
    fn placed_hero(
        &mut self,
        i: usize,
        raw: &RawFormation,
        count: usize,
        ranks: usize,
        diameter_mm: f64,
        warriors: &Profile,
        banner: Option<usize>,
    ) -> Option<PlacedHero> {
        let h = raw.hero.as_ref()?;
        let at = |name: &str| format!("formations[{i}].hero.{name}");
        if warriors.hero.is_some() {
            self.fail(&at("profile"), "every model of this formation is already a Hero (its profile has might, will and fate): place a Hero among warriors only");
        }
        let (profile, base_mm) = self.model_profile(&at("profile"), &h.profile)?;
        if profile.hero.is_none() {
            self.fail(
                &at("profile.might"),
                "the placed Hero's profile needs might, will and fate (0 where he has none)",
            );
        }
        if let Some(d) = base_mm
            && (diameter_mm.is_nan() || (d - diameter_mm).abs() > 1e-9)
        {
            let theirs = if diameter_mm.is_nan() { "oval".to_string() } else { format!("{diameter_mm} mm") };
            self.fail(
                &at("profile.base_mm"),
                format!("the Hero stands in the formation's ranks on its {theirs} bases; a {d} mm base would need its own formation"),
            );
        }
        let index = self.place(&at("at"), h.at, count, ranks, "the Hero")?;
        if banner == Some(index) {
            self.fail(&at("at"), "the banner bearer stands there: place the Hero elsewhere (at = [rank, file]) or move the banner (banner_at)");
        }
        let name = h.name.clone().unwrap_or_else(|| match &h.profile {
            toml::Value::String(n) => n.clone(),
            _ => "Hero".to_string(),
        });
        Some(PlacedHero { name, index, profile })
    }

    /// The banner bearer's index among the formation's models (rank by rank, files from its
    /// left): `banner_at` = [rank, file], by default the middle of the front rank (the left
    /// of the two middle files when the rank is even).
    fn banner(&mut self, i: usize, raw: &RawFormation, count: usize, ranks: usize) -> Option<usize> {
        let at = |name: &str| format!("formations[{i}].{name}");
        if !raw.banner.unwrap_or(false) {
            if raw.banner_at.is_some() {
                self.fail(&at("banner_at"), "banner_at places a banner bearer: add banner = true, or remove banner_at");
            }
            return None;
        }
        self.place(&at("banner_at"), raw.banner_at, count, ranks, "the bearer")
    }

    /// A model's index among a formation's (rank by rank, files from its left) from `at` =
    /// [rank, file], by default the middle of the front rank (the left of the two middle
    /// files when the rank is even).
    fn place(&mut self, field: &str, at: Option<[i64; 2]>, count: usize, ranks: usize, who: &str) -> Option<usize> {
        let per_rank = count.div_ceil(ranks.max(1));
        let in_rank = |rank: usize| per_rank.min(count.saturating_sub(per_rank * (rank - 1)));
        let [rank, file] = at.unwrap_or([1, in_rank(1).div_ceil(2) as i64]);
        if rank < 1 || rank as usize > ranks {
            self.fail(field, format!("rank {rank} is outside the formation (ranks 1 to {ranks}); {who} stands in it"));
            return None;
        }
        let files = in_rank(rank as usize);
        if file < 1 || file as usize > files {
            self.fail(
                field,
                format!("file {file} is outside rank {rank} (files 1 to {files}, from the formation's left); {who} stands in it"),
            );
            return None;
        }
        Some(per_rank * (rank as usize - 1) + file as usize - 1)
    }

    fn whole(&mut self, field: &str, value: i64, lo: i64, hi: i64, what: &str) -> usize {
        if (lo..=hi).contains(&value) {
            value as usize
        } else {
            self.fail(field, format!("{what} {value} is out of range; allowed {lo} to {hi}"));
            lo as usize
        }
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
