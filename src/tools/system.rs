//! A rule system as every tool sees it: reading, compiling, naming and pricing a scenario,
//! whichever system it is. The engine's [`RuleSystem`] plays the trials; [`Game`] adds what
//! the procedures of [`crate::tools`] (comparisons, sweeps, balance) need around them, so
//! the command line and the web server call one procedure instead of assembling their own.
//! [`Loaded`] is a scenario file of any kind, picked by its `system` field and its
//! `[[chariots]]`: the one place that asks which system a file is.

use crate::battlesystem::scenario::{BattlesystemScenario, SystemField, system_of};
use crate::engine::RuleSystem;
use crate::mesbg::scenario::{self, Scenario, ScenarioError};
use crate::mesbg::turn::TurnPlan;
use crate::tools::balance::{BalanceError, Pricing, SplitKind, ValueModel};
use std::path::Path;

/// What every tool needs to know about a scenario, whichever system it is.
#[derive(Clone, Debug)]
pub struct Facts {
    /// Its title.
    pub title: String,
    /// Its name in reports (the file as given).
    pub name: String,
    /// Its hash, the key of its streams.
    pub hash: u64,
    /// Its own seed.
    pub seed: u64,
    /// Its own trials.
    pub trials: u64,
    /// Its folder name under reports/.
    pub slug: String,
    /// The rule options and policies in force.
    pub ruleset: Vec<crate::input::RuleOption>,
    /// What one trial is, for chart axes: "charge", "rout" or "turn".
    pub trial_word: &'static str,
}

/// A rule system as the tools use it (the command line and the server add their reports
/// and printing on top).
pub trait Game {
    /// The validated scenario.
    type Scenario: Clone;
    /// The compiled plan the engine plays.
    type Plan: RuleSystem;

    /// The scenario of a loaded file, if it is of this system.
    fn take(loaded: Loaded) -> Option<Self::Scenario>;
    /// Reads a scenario's text (`file` names it in messages).
    fn parse(text: &str, file: &str) -> Result<Self::Scenario, ScenarioError>;
    /// Compiles a scenario into the plan the engine plays.
    fn compile(scenario: &Self::Scenario) -> Self::Plan;
    /// What every tool needs to know about the scenario.
    fn facts(scenario: &Self::Scenario) -> Facts;
    /// The profile library as TOML, so `--set` can reach a field a profile supplies.
    fn profile_library() -> toml::Table;
    /// The price of the scenario's acting piece and what each enemy it destroys is worth
    /// (`field`: the price field asked for, or the system's default).
    fn pricing(
        scenario: &Self::Scenario,
        plan: &Self::Plan,
        field: Option<&str>,
        model: ValueModel,
    ) -> Result<Pricing, BalanceError>;
    /// What is allowed but probably not meant, each naming its field: said by `validate`,
    /// `run`, `sweep` and `compare`, which still run.
    fn warnings(scenario: &Self::Scenario, plan: &Self::Plan) -> Vec<crate::input::Problem>;
    /// The scenario without what it adds last, named, so a balance can split a fair price:
    /// the Hero riding a chariot (the chariot's part and his), or a turn's last chariot
    /// (what one more chariot in the turn is worth).
    fn without_rider(scenario: &Self::Scenario) -> Option<(Self::Scenario, String, SplitKind)>;
}

/// A scenario of any kind, as read from its file.
pub enum Loaded {
    /// A Middle-earth SBG charge of one chariot.
    Mesbg(Box<Scenario>),
    /// A BATTLESYSTEM charge or rout.
    Battlesystem(Box<BattlesystemScenario>),
    /// A turn of several MESBG chariots.
    Turn(Box<Scenario>),
}

impl Loaded {
    /// What kind of scenario it is, for messages: "a MESBG charge of one chariot", ...
    pub fn kind(&self) -> &'static str {
        match self {
            Loaded::Mesbg(_) => "a MESBG charge of one chariot",
            Loaded::Battlesystem(_) => "a BATTLESYSTEM scenario",
            Loaded::Turn(_) => "a MESBG turn of several chariots",
        }
    }
}

/// Calls the generic `$f::<G>(scenario, args...)` with `G` the loaded scenario's rule
/// system (`$loaded` a [`Loaded`]): the one place a tool or a command asks which system a
/// file is.
macro_rules! on_system {
    ($loaded:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $loaded {
            $crate::tools::system::Loaded::Mesbg(s) => $f::<$crate::tools::system::Mesbg>(*s $(, $arg)*),
            $crate::tools::system::Loaded::Battlesystem(s) => {
                $f::<$crate::tools::system::Battlesystem>(*s $(, $arg)*)
            }
            $crate::tools::system::Loaded::Turn(s) => $f::<$crate::tools::system::Turn>(*s $(, $arg)*),
        }
    };
}
pub(crate) use on_system;

/// A MESBG scenario as loaded: a turn of several chariots is its own system, checked to
/// plan.
fn mesbg_loaded(scenario: Scenario) -> Result<Loaded, ScenarioError> {
    if scenario.is_turn() {
        check_turn(&scenario)?;
        return Ok(Loaded::Turn(Box::new(scenario)));
    }
    Ok(Loaded::Mesbg(Box::new(scenario)))
}

/// Reads a scenario file of any kind (the bundled default without a file).
pub fn load_file(file: Option<&Path>) -> Result<Loaded, ScenarioError> {
    let Some(path) = file else {
        return scenario::parse(scenario::DEFAULT_SCENARIO, scenario::DEFAULT_SCENARIO_NAME)
            .map(|s| Loaded::Mesbg(Box::new(s)));
    };
    load_text(&scenario::read(path)?, &path.display().to_string())
}

/// Reads a scenario's text of any kind, by its `system` field (`name` names it in
/// messages).
pub fn load_text(text: &str, name: &str) -> Result<Loaded, ScenarioError> {
    match system_of(text) {
        SystemField::Battlesystem => {
            crate::battlesystem::scenario::parse(text, name).map(|s| Loaded::Battlesystem(Box::new(s)))
        }
        SystemField::Mesbg | SystemField::Unreadable => mesbg_loaded(scenario::parse(text, name)?),
        SystemField::Other(found) => Err(ScenarioError::Invalid {
            file: name.to_string(),
            problems: vec![scenario::Problem {
                field: "system".into(),
                line: scenario::locate(text, "system"),
                message: format!("unknown system {found}; allowed: \"mesbg\", \"battlesystem\""),
            }],
        }),
    }
}

/// The scenario refused when its turn cannot be planned, naming the field.
pub fn check_turn(scenario: &Scenario) -> Result<(), ScenarioError> {
    crate::mesbg::turn::check(scenario).map_err(|e| ScenarioError::Invalid {
        file: scenario.file.clone(),
        problems: vec![scenario::Problem { field: "chariots".into(), line: None, message: e.to_string() }],
    })
}

/// The facts of a MESBG scenario, a charge or a turn (`trial_word`).
fn mesbg_facts(s: &Scenario, trial_word: &'static str) -> Facts {
    Facts {
        title: s.title.clone(),
        name: s.file.clone(),
        hash: s.hash(),
        seed: s.seed,
        trials: s.trials,
        slug: s.slug(),
        ruleset: s.ruleset(),
        trial_word,
    }
}

/// Middle-earth Strategy Battle Game: the charge of one chariot.
pub struct Mesbg;

impl Game for Mesbg {
    type Scenario = Scenario;
    type Plan = crate::mesbg::plan::Plan;

    fn take(loaded: Loaded) -> Option<Scenario> {
        match loaded {
            Loaded::Mesbg(s) => Some(*s),
            _ => None,
        }
    }
    fn parse(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
        scenario::parse(text, file)
    }
    fn compile(scenario: &Scenario) -> Self::Plan {
        crate::mesbg::plan::compile(scenario)
    }
    fn facts(s: &Scenario) -> Facts {
        mesbg_facts(s, "charge")
    }
    fn profile_library() -> toml::Table {
        scenario::bundled_profile_tables()
    }
    fn pricing(
        s: &Scenario,
        plan: &Self::Plan,
        field: Option<&str>,
        model: ValueModel,
    ) -> Result<Pricing, BalanceError> {
        crate::tools::balance::pricing(s, plan, field.unwrap_or("chariot.points"), model)
    }
    fn warnings(s: &Scenario, plan: &Self::Plan) -> Vec<crate::input::Problem> {
        plan.warnings(s)
    }
    fn without_rider(s: &Scenario) -> Option<(Scenario, String, SplitKind)> {
        let hero = s.chariot.hero.as_ref()?.name.clone();
        let mut alone = s.clone();
        alone.chariot.hero = None;
        Some((alone, hero, SplitKind::HeroRiding))
    }
}

/// AD&D BATTLESYSTEM: a charge or a rout.
pub struct Battlesystem;

impl Game for Battlesystem {
    type Scenario = BattlesystemScenario;
    type Plan = crate::battlesystem::resolve::BattlesystemPlan;

    fn take(loaded: Loaded) -> Option<BattlesystemScenario> {
        match loaded {
            Loaded::Battlesystem(s) => Some(*s),
            _ => None,
        }
    }
    fn parse(text: &str, file: &str) -> Result<BattlesystemScenario, ScenarioError> {
        crate::battlesystem::scenario::parse(text, file)
    }
    fn compile(scenario: &BattlesystemScenario) -> Self::Plan {
        crate::battlesystem::resolve::compile(scenario)
    }
    fn facts(s: &BattlesystemScenario) -> Facts {
        Facts {
            title: s.title.clone(),
            name: s.file.clone(),
            hash: s.hash(),
            seed: s.seed,
            trials: s.trials,
            slug: s.slug(),
            ruleset: s.rules.ruleset(),
            trial_word: match s.action {
                crate::battlesystem::scenario::Action::Rout { .. } => "rout",
                crate::battlesystem::scenario::Action::Charge { .. } => "charge",
            },
        }
    }
    fn profile_library() -> toml::Table {
        toml::Table::new()
    }
    fn pricing(
        s: &BattlesystemScenario,
        plan: &Self::Plan,
        field: Option<&str>,
        model: ValueModel,
    ) -> Result<Pricing, BalanceError> {
        crate::tools::balance::battlesystem_pricing(s, plan, field, model)
    }
    fn warnings(_: &BattlesystemScenario, _: &Self::Plan) -> Vec<crate::input::Problem> {
        // A charge's geometry is checked when the file is read (the target must be within
        // the charger's MV), and a rout has no path to miss: nothing to warn of.
        Vec::new()
    }
    fn without_rider(_: &BattlesystemScenario) -> Option<(BattlesystemScenario, String, SplitKind)> {
        None // a platform's crew is its unit's figures, priced with it
    }
}

/// A turn of several MESBG chariots (`[[chariots]]`).
pub struct Turn;

impl Game for Turn {
    type Scenario = Scenario;
    type Plan = TurnPlan;

    fn take(loaded: Loaded) -> Option<Scenario> {
        match loaded {
            Loaded::Turn(s) => Some(*s),
            _ => None,
        }
    }
    fn parse(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
        let s = scenario::parse(text, file)?;
        if !s.is_turn() {
            return Err(ScenarioError::Invalid {
                file: file.to_string(),
                problems: vec![scenario::Problem {
                    field: "chariots".into(),
                    line: None,
                    message: "this edit leaves one chariot: a turn needs two or more [[chariots]]".into(),
                }],
            });
        }
        check_turn(&s)?;
        Ok(s)
    }
    fn compile(scenario: &Scenario) -> TurnPlan {
        // Checked when the file was read (`check_turn`): every order plans.
        match crate::mesbg::turn::compile(scenario) {
            Ok(plan) => plan,
            Err(_) => match crate::mesbg::turn::compile_order(scenario, (0..=scenario.more.len()).collect()) {
                Ok(plan) => plan,
                Err(e) => panic!("a turn that was checked failed to plan: {e}"),
            },
        }
    }
    fn facts(s: &Scenario) -> Facts {
        mesbg_facts(s, "turn")
    }
    fn profile_library() -> toml::Table {
        scenario::bundled_profile_tables()
    }
    fn pricing(s: &Scenario, plan: &TurnPlan, field: Option<&str>, model: ValueModel) -> Result<Pricing, BalanceError> {
        crate::tools::balance::turn_pricing(s, plan, field.unwrap_or("chariots.points"), model)
    }
    fn warnings(s: &Scenario, plan: &TurnPlan) -> Vec<crate::input::Problem> {
        let mut warnings = s.warnings.clone();
        for &c in &plan.order {
            let meets = plan.nodes.iter().filter(|n| n.chariot == c).any(|n| !n.groups.is_empty());
            if !meets {
                warnings.push(crate::input::Problem {
                    field: format!("chariots[{c}]"),
                    line: None,
                    message: format!(
                        "chariot {} touches no model on any board it may meet: it charges into nothing (move it, or change its pivots, aim or plan)",
                        c + 1
                    ),
                });
            }
        }
        warnings
    }
    fn without_rider(s: &Scenario) -> Option<(Scenario, String, SplitKind)> {
        // Not the Hero: the last chariot, so that `balance` says what one more is worth.
        crate::tools::balance::turn_without_last(s).map(|(fewer, words)| (fewer, words, SplitKind::LastChariot))
    }
}

/// A word or path as a POSIX shell reads it back: left bare when it holds only safe
/// characters, otherwise single-quoted, for the reproduce commands reports print.
pub fn shell_quote(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Why `a` and `b` (of the kind `b_kind`) cannot be paired by `command`: each file's kind
/// named (a MESBG charge, a MESBG turn, BATTLESYSTEM), never a guess.
pub fn unpaired(command: &str, a: &Path, b: &Path, b_kind: &str) -> String {
    let a_kind = load_file(Some(a)).map_or("another kind of scenario", |l| l.kind());
    format!(
        "{command} pairs two scenarios of one kind (their trials share random streams): {} is {a_kind}, {} is {b_kind}",
        a.display(),
        b.display()
    )
}
