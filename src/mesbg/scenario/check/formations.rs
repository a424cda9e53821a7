//! Checking formations: their models' profiles, Heroes, banners and places.

use super::*;

/// How close two bases stand to be in base contact for Shieldwall, mm (the plan's base
/// contact tolerance, for spears and pikes too).
pub const SHIELDWALL_CONTACT_MM: f64 = 1.0;

impl Checker<'_> {
    pub(super) fn formation(&mut self, i: usize, raw: &RawFormation, enemy: Side) -> Option<Formation> {
        let at = |name: &str| format!("formations[{i}].{name}");
        if raw.name.trim().is_empty() || raw.name.len() > 100 {
            self.fail(&at("name"), "the name must be 1 to 100 characters");
        }
        let count = self.whole(&at("count"), raw.count, 1, MAX_MODELS as i64, "count");
        let ranks = self.whole(&at("ranks"), raw.ranks, 1, count.max(1) as i64, "ranks");
        let gap_mm = self.float(&at("gap_mm"), raw.gap_mm, 0.0, 200.0, "gap_mm");
        let front_centre = self.point(&at("front_centre"), raw.front_centre);
        let facing = match raw.facing {
            Some(f) => self.float(&at("facing"), f, -360.0, 360.0, "the facing (degrees)"),
            None => {
                let starts = self.chariot_starts.clone();
                self.facing_towards(&at("facing"), raw.front_centre, &starts, "the nearest chariot")
            }
        };
        let (mut profile, base_mm) = self.model_profile(&at("profile"), &raw.profile)?;
        // Wargear and points written beside the profile override it; beside a library name
        // the wargear is priced from the list's options and a shield counts in Defence.
        let entry = match &raw.profile {
            toml::Value::String(name) => self.library.models.get(name).cloned().map(|e| (name.clone(), e)),
            _ => None,
        };
        let bearer_points = self.choose_wargear(i, raw, &mut profile, entry.as_ref());
        if let Some(points) = raw.points {
            profile.points = self.points(&at("points"), points);
        }
        // Shieldwall needs base contact: a formation spaced apart gets nothing from it.
        if self.rules_shieldwall && profile.in_shieldwall() && raw.count >= 2 && raw.gap_mm > SHIELDWALL_CONTACT_MM {
            self.warn(
                &at("gap_mm"),
                format!(
                    "\"{}\" has Shieldwall, but with gap_mm = {} its models do not touch (base contact is within {SHIELDWALL_CONTACT_MM} mm), so none gets the +1 Defence: set gap_mm = 0 for a shield wall",
                    raw.name, raw.gap_mm
                ),
            );
        }
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
            bearer_points: if banner.is_some() { bearer_points } else { 0 },
            hero,
        })
    }

    /// Applies `shield`, `spear` and `pike` written beside a profile. Beside a library name
    /// each must be one of the list's options: its points are added and a shield adds 1 to
    /// Defence unless the model carries a pike (and a pike takes a standard shield's point
    /// away). Beside an inline table the flags are set as written (Defence as written).
    /// Returns the banner's points for the bearer (the list's banner option, 0 inline).
    fn choose_wargear(
        &mut self,
        i: usize,
        raw: &RawFormation,
        profile: &mut Profile,
        entry: Option<&(String, RawProfile)>,
    ) -> u32 {
        let at = |name: &str| format!("formations[{i}].{name}");
        let standard = (profile.shield, profile.spear, profile.pike);
        let shield = raw.shield.unwrap_or(profile.shield);
        let spear = raw.spear.unwrap_or(profile.spear);
        let pike = raw.pike.unwrap_or(profile.pike);
        if (raw.spear.is_some() || raw.pike.is_some() || raw.shield.is_some()) && spear && pike {
            self.fail(&at("pike"), "a model carries a spear or a pike, not both: set one of them to false");
        }
        let mut banner_points = 0;
        if let Some((name, e)) = entry {
            let offered = || {
                let mut all: Vec<String> = e.options.keys().map(|k| format!("\"{k}\"")).collect();
                if all.is_empty() {
                    all.push("none".into());
                }
                all.join(", ")
            };
            for (field, chosen, carried) in
                [("shield", shield, standard.0), ("spear", spear, standard.1), ("pike", pike, standard.2)]
            {
                if !chosen || carried {
                    continue;
                }
                match e.options.get(field) {
                    Some(&cost) => profile.points += u32::try_from(cost.max(0)).unwrap_or(0),
                    None => self.fail(
                        &at(field),
                        format!("\"{name}\" takes no {field} in its 2024 list (its options: {}): remove {field} = true, or write the profile out as a table", offered()),
                    ),
                }
            }
            if raw.banner.unwrap_or(false) {
                match e.options.get("banner") {
                    Some(&cost) => banner_points = u32::try_from(cost.max(0)).unwrap_or(0),
                    None => self.fail(
                        &at("banner"),
                        format!("\"{name}\" has no banner option in its 2024 list (its options: {}): remove banner, or give the formation another profile", offered()),
                    ),
                }
            }
            // A shield counts in Defence unless a pike is carried with it.
            let counted = |shield: bool, pike: bool| i32::from(shield && !pike);
            let defence = i32::from(profile.defence) - counted(standard.0, standard.2) + counted(shield, pike);
            profile.defence = u8::try_from(defence.clamp(1, 10)).unwrap_or(profile.defence);
        }
        profile.shield = shield;
        profile.spear = spear;
        profile.pike = pike;
        banner_points
    }

    /// A model profile from a library name or an inline table at `field` (e.g.
    /// `formations[0].profile`), with its base diameter when it gives one.
    pub(super) fn model_profile(&mut self, field: &str, value: &toml::Value) -> Option<(Profile, Option<f64>)> {
        let pf = |name: &str| format!("{field}.{name}");
        let (p, named) = match value {
            toml::Value::String(name) => {
                let library = std::mem::take(&mut self.library.models);
                let found = self.lookup(field, "model", name, &library);
                self.library.models = library;
                (found?, true)
            }
            toml::Value::Table(table) => {
                match RawProfile::deserialize(toml::Value::Table(table.clone())) {
                    Ok(p) => {
                        for key in super::super::LIBRARY_ONLY_KEYS {
                            let weapon = key == "two_handed" || key == "hand_and_a_half";
                            match table.get(key) {
                            None => {}
                            Some(toml::Value::Boolean(false)) if weapon => {}
                            Some(_) if weapon => self.fail(
                                &pf(key),
                                format!("a {} weapon on an enemy model {NOT_YET}: remove {key}", key.replace('_', "-")),
                            ),
                            Some(_) => self.fail(
                                &pf(key),
                                format!("{key} is read only in the library file (scenarios/profiles/mesbg.toml): remove it"),
                            ),
                        }
                        }
                        (p, false)
                    }
                    Err(e) => {
                        self.fail(field, plain_words(e.message()));
                        return None;
                    }
                }
            }
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
            shieldwall: p.shieldwall.unwrap_or_else(|| p.rules.iter().any(|r| super::super::is_shieldwall(r))),
            hero: None,
        };
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
    pub(super) fn heroism(&mut self, field: &str, p: &RawProfile, profile: &Profile) -> Option<Heroism> {
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
            will: self.int(&pf("will"), p.will.unwrap_or(0), 0, 30, "will"),
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
    pub(super) fn placed_hero(
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
    pub(super) fn banner(&mut self, i: usize, raw: &RawFormation, count: usize, ranks: usize) -> Option<usize> {
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
    pub(super) fn place(
        &mut self,
        field: &str,
        at: Option<[i64; 2]>,
        count: usize,
        ranks: usize,
        who: &str,
    ) -> Option<usize> {
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

    pub(super) fn whole(&mut self, field: &str, value: i64, lo: i64, hi: i64, what: &str) -> usize {
        if (lo..=hi).contains(&value) {
            value as usize
        } else {
            self.fail(field, format!("{what} {value} is out of range; allowed {lo} to {hi}"));
            lo as usize
        }
    }
}
