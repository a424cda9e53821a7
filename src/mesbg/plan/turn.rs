//! A turn of several chariots, compiled (`[[chariots]]`): each charges in the Move phase
//! in order into the board as the earlier ones left it, then every fight is fought.
//!
//! A later chariot's path depends on the dice only through what the earlier charges did
//! to the board, and that is told by a few discrete facts per chariot: how many of its
//! contact groups it drove past (their models slain), which models of the group it
//! stopped at survived, and whether it was slain on the way (difficult terrain, an
//! obstacle). So the turn is compiled as a tree: each node is one chariot's drive on one
//! board, and each of its possible [`MoveKey`]s leads to the next chariot's node (or, after
//! the last, to a [`FinalBoard`] holding the fights and the line's measurements). Every
//! drive, push, friendly chariot in the way, corridor and support map is worked out once
//! here; a trial walks the tree rolling dice. What changes per trial and not per board
//! (Wounds left, Fate spent, Prone riders, who dies in the fights) is the resolver's.

use super::path::{Standing, can_back_away, pose_at};
use super::*;
use crate::engine::MetricSet;
use crate::mesbg::scenario::{Formation, TurnEntry, TurnOrder};

/// The most boards a turn may compile (nodes and final boards together): past this the
/// turn is refused, with the fix named.
pub const MAX_TURN_BOARDS: usize = 20_000;

/// The most models a chariot may touch at the same instant in a turn (their survivors are
/// a bit mask of the board's key).
pub const MAX_SIMULTANEOUS_IN_TURN: usize = 12;

/// Trials each order is played to choose `[turn] order = "best"` (on streams of their own).
pub const BEST_ORDER_TRIALS: u64 = 20_000;

/// What one chariot's move came to, as far as the board is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MoveKey {
    /// Contact groups driven past (their models slain).
    pub passed: u16,
    /// Survivors of the group it stopped at (bit i: the group's model i); 0 when it did not
    /// stop at a group.
    pub survivors: u32,
    /// Slain during its move (by difficult terrain or an obstacle): removed from the board.
    pub gone: bool,
}

/// Models a chariot of the turn touches at the same instant.
#[derive(Clone, Debug, Serialize)]
pub struct TurnGroup {
    /// Distance driven when it touches them, inches.
    pub distance: f64,
    /// Model indices.
    pub models: Vec<usize>,
}

/// One chariot's drive on one board of the turn.
#[derive(Clone, Debug)]
pub struct TurnMove {
    /// Its place in the list of chariots (0-based).
    pub chariot: usize,
    /// Its place in the order of the turn (0-based).
    pub depth: usize,
    /// Where the models stood before it moved.
    pub centres: Vec<Vec2>,
    /// Which models stood before it moved.
    pub present: Vec<bool>,
    /// The chariots standing before it moved: (listed index, pose).
    pub standing: Vec<(usize, Pose)>,
    /// Its contacts, in order.
    pub groups: Vec<TurnGroup>,
    /// Its path, stretch by stretch.
    pub legs: Vec<Leg>,
    /// Where it ends if nothing stops it.
    pub end: Pose,
    /// Models its pivots pushed aside.
    pub pushes: Vec<Push>,
    /// The obstacle it drives into, if it does.
    pub obstacle: Option<ObstacleContact>,
    /// Where it enters difficult terrain (the test is rolled there).
    pub difficult_from: Option<f64>,
    /// The first group reached only after the difficult-terrain test.
    pub terrain_group: usize,
    /// The friendly chariot (listed index) its drive ended short of, and where.
    pub blocked_by: Option<(usize, f64)>,
    /// Driving on past every model ends wholly beyond every formation it touched.
    pub breakthrough_possible: bool,
    /// Where each outcome leads: the next chariot's node, or a final board after the last.
    pub children: Vec<(MoveKey, usize)>,
    /// `children`'s keys as words ([`MoveKey::word`]), in the same order: a trial finds
    /// its outcome among them with one comparison of a word each, where a search of
    /// `children` compares three fields at every step.
    child_words: Vec<u64>,
}

impl MoveKey {
    /// The key as one word, equal for equal keys and only for them.
    #[inline]
    pub fn word(self) -> u64 {
        u64::from(self.passed) << 33 | u64::from(self.survivors) << 1 | u64::from(self.gone)
    }
}

impl TurnMove {
    /// Where the outcome `key` leads (an index into the next level's list).
    #[inline]
    pub fn child(&self, key: MoveKey) -> Option<usize> {
        let word = key.word();
        self.child_words.iter().position(|&w| w == word).map(|i| self.children[i].1)
    }

    /// Where the chariot stands after the outcome `key` (`None`: slain in the move).
    pub fn pose_after(&self, key: MoveKey) -> Option<Pose> {
        if key.gone {
            return None;
        }
        match self.groups.get(usize::from(key.passed)) {
            Some(g) if key.survivors != 0 => pose_at(&self.legs, g.distance),
            _ => Some(self.end),
        }
    }

    /// The distance driven by the outcome `key`.
    fn reached(&self, key: MoveKey) -> f64 {
        if key.gone && usize::from(key.passed) == self.terrain_group {
            return self.difficult_from.unwrap_or(f64::INFINITY);
        }
        match self.groups.get(usize::from(key.passed)) {
            Some(g) if key.survivors != 0 => g.distance,
            _ => f64::INFINITY,
        }
    }
}

/// One fight of the Fight phase: one chariot against the models it touches, or several
/// chariots against the one model they all touch.
#[derive(Clone, Debug, Serialize)]
pub struct TurnFight {
    /// The chariots (listed indices), in the order of the turn.
    pub chariots: Vec<usize>,
    /// The enemy models.
    pub models: Vec<usize>,
    /// The Monsters among them that cannot Back Away from where the chariot(s) stand.
    pub cannot_back_away: Vec<usize>,
}

/// The board after every chariot has moved: what the fights and the line's measurements
/// need.
#[derive(Clone, Debug)]
pub struct FinalBoard {
    /// Where every model stands.
    pub centres: Vec<Vec2>,
    /// Which models stand (the others were slain by Impact Hits).
    pub present: Vec<bool>,
    /// The models slain by Impact Hits (those not standing).
    pub slain_in_moves: Vec<usize>,
    /// Per listed chariot: where it stands (`None`: slain in its move).
    pub poses: Vec<Option<Pose>>,
    /// Per listed chariot: it drove past every model it touched and ended wholly beyond
    /// every formation it touched.
    pub through: Vec<bool>,
    /// The fights, in the order they are fought.
    pub fights: Vec<TurnFight>,
    /// Spears, pikes and banners on this board (engaged models marked).
    pub support: support::SupportMap,
    /// Per fight: its support worked out once, when no trial can change it beyond one
    /// earlier bearer's fate (no cavalry in it or in an earlier fight: every model stands
    /// in it, none Prone; at most one banner bearer fought earlier, worked out both ways);
    /// `None` where the fight works it out from who stands.
    pub fixed_support: Vec<Option<FixedSupport>>,
    /// Per line ([`lines_of`]): a corridor runs through it before any fight.
    pub breached: Vec<bool>,
    /// Per formation (in the file's order): its models slain by Impact Hits, for
    /// `line_halved` (a trial adds those its fights slew).
    pub lost_in_moves: Vec<u32>,
    /// How the charging player split the models in contact into fights, when there was a
    /// choice: (legal splits weighed, the kills the chosen one promised).
    pub split_choice: Option<(usize, f64)>,
}

/// A fight's help worked out with the plan: as it stands when every model fought earlier
/// in the turn still stands, and, when one banner bearer is fought in an earlier fight,
/// as it stands once he was slain there (his banner gone; nothing else about the help can
/// change, since a model in a fight never supports).
#[derive(Clone, Debug)]
pub struct FixedSupport {
    /// Every model fought earlier still standing.
    pub help: mesbg_fight::FoeSupport,
    /// The bearer fought earlier, and the help once he was slain.
    pub bearer_slain: Option<(usize, mesbg_fight::FoeSupport)>,
}

impl FixedSupport {
    /// The help, given the models slain in the fights fought before this one.
    #[inline]
    pub fn given(&self, slain_earlier: &[usize]) -> &mesbg_fight::FoeSupport {
        match &self.bearer_slain {
            Some((bearer, help)) if slain_earlier.contains(bearer) => help,
            _ => &self.help,
        }
    }
}

/// Every chariot's Impact Hits tables on every model ([`TurnPlan::impact`]) laid out
/// flat: a contact of the Move phase finds its model's table in two steps and reads its
/// thresholds beside its outcomes, where the nested tables take a chain of dependent
/// loads (list of chariots, list of models, the model's states, the table, its thresholds,
/// its outcomes) that a turn waits on at every contact. It draws what
/// [`ImpactTables::sample`] draws from the same word.
#[derive(Clone, Debug, Default)]
pub struct FlatImpact {
    /// Models on the board.
    models: usize,
    /// Per chariot and model (`chariot * models + model`): where its tables begin, and
    /// how its states index them.
    states: Vec<FlatStates>,
    /// Per table: its rows in `rows` (first, count).
    tables: Vec<(u32, u32)>,
    /// Per table, row by row: P(an outcome up to this one) scaled to 2^64 (as a
    /// [`CumulativeTable`] holds it; the last row's is not read), and the outcome.
    rows: Vec<(u64, ContactOutcome)>,
}

/// The index among a model's Impact Hits tables of the state (Wounds left, mount's
/// Wounds left, Fate left), for a model whose mount has `mount` Wounds and who has `fate`
/// Fate: Wounds first, then the mount's, then Fate ([`ImpactStates::compile`]'s order).
#[inline]
fn state_index((mount, fate): (u8, u8), (left, mount_left, fate_left): (u8, u8, u8)) -> usize {
    let (m, f) = (usize::from(mount) + 1, usize::from(fate) + 1);
    ((usize::from(left.max(1)) - 1) * m + usize::from(mount_left.min(mount))) * f + usize::from(fate_left.min(fate))
}

/// Where one chariot's tables on one model are in a [`FlatImpact`].
#[derive(Clone, Copy, Debug, Default)]
struct FlatStates {
    /// Its first table.
    first: u32,
    /// The model's Wounds.
    wounds: u8,
    /// Its mount's Wounds ([`ImpactStates::index`]).
    mount: u8,
    /// Its Fate.
    fate: u8,
    /// The model is a Hero (its fall counts among the enemy Heroes slain).
    hero: bool,
}

impl FlatImpact {
    /// Lays out `impact` (per chariot, per model), with which models are Heroes.
    fn new(impact: &[Vec<std::sync::Arc<ImpactStates>>], heroes: &[bool]) -> Self {
        let mut flat = FlatImpact { models: impact.first().map_or(0, Vec::len), ..Default::default() };
        for per_model in impact {
            for (states, &hero) in per_model.iter().zip(heroes) {
                flat.states.push(FlatStates {
                    first: flat.tables.len() as u32,
                    wounds: states.wounds,
                    mount: states.mount,
                    fate: states.fate,
                    hero,
                });
                for table in &states.tables {
                    let thresholds = table.table.thresholds().iter().copied().chain(std::iter::once(u64::MAX));
                    flat.tables.push((flat.rows.len() as u32, table.outcomes.len() as u32));
                    flat.rows.extend(thresholds.zip(table.outcomes.iter().copied()));
                }
            }
        }
        flat
    }

    /// The state `model` is in when the turn begins, untouched: (Wounds, mount's Wounds,
    /// Fate).
    #[inline]
    pub fn opening(&self, model: usize) -> (u8, u8, u8) {
        let st = self.states[model];
        (st.wounds, st.mount, st.fate)
    }

    /// Whether `model` is a Hero (its fall counts among the enemy Heroes slain).
    #[inline]
    pub fn is_hero(&self, model: usize) -> bool {
        self.states[model].hero
    }

    /// Draws the outcome of chariot `chariot`'s Impact Hits on `model`, in the state it
    /// is in, with one word of `dice`; and whether the model is a Hero.
    #[inline]
    pub fn sample(
        &self,
        (chariot, model): (usize, usize),
        (left, mount_left, fate_left): (u8, u8, u8),
        dice: &mut Dice,
    ) -> (ContactOutcome, bool) {
        let st = self.states[chariot * self.models + model];
        let index = state_index((st.mount, st.fate), (left, mount_left, fate_left));
        let (first, count) = self.tables[st.first as usize + index];
        let rows = &self.rows[first as usize..(first + count) as usize];
        let u = dice.word();
        // Counted as `sampled_index` counts: the thresholds at or below the word.
        let at: usize = rows[..rows.len().saturating_sub(1)].iter().map(|r| usize::from(r.0 <= u)).sum();
        (rows[at].1, st.hero)
    }
}

/// What one contact's Impact Hits did to a model, as far as the rest of the turn can
/// tell: the outcomes of a model's table that agree on it are one effect for a drive drawn
/// whole ([`DrawnDrive`]); which of them it was (how many hits, which wounded) matters
/// only to a replay, which draws it again given the effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContactEffect {
    /// Wounds the model (the rider) has left.
    pub left: u8,
    /// Wounds its mount has left.
    pub mount_left: u8,
    /// Fate it spent.
    pub fate_spent: u8,
    /// It lies Prone.
    pub prone: bool,
    /// It no longer Strikes (Prone, or a rider Rising from the Dust).
    pub strikes_lost: bool,
    /// It counts as a casualty.
    pub casualty: bool,
    /// The chariot drives on past it.
    pub passed: bool,
}

impl ContactEffect {
    /// The effect of a contact's outcome.
    pub fn of(o: &ContactOutcome) -> Self {
        Self {
            left: o.left,
            mount_left: o.mount_left,
            fate_spent: o.fate_spent,
            prone: o.prone,
            strikes_lost: o.prone || matches!(o.thrown, Some(2..=5)),
            casualty: o.casualty,
            passed: o.passed,
        }
    }
}

/// One way a chariot's drive can end, drawn whole: the effect on each model it reached, in
/// the order it reached them (group by group, each group's models in order), and what the
/// drive came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriveOutcome {
    /// Per model reached, in order: the model and what its contact did.
    pub effects: Vec<(usize, ContactEffect)>,
    /// What the drive came to.
    pub key: MoveKey,
}

/// A drive of a turn without difficult terrain or an obstacle, as an exact distribution
/// drawn with one word: every model it can reach, from the state it is in, and where the
/// drive stops. A drive's contacts are independent given the models' states, so the
/// product of their tables (each merged by [`ContactEffect`]) is the drive's law; drawn in
/// one go it costs a turn one word and one scan where contact by contact it cost a word,
/// a table and a branch per model.
#[derive(Clone, Debug)]
pub struct DrawnDrive {
    /// Per outcome, likeliest first: P(an outcome up to this one) scaled to 2^64 (the last
    /// one's is not read) and the outcome.
    entries: std::sync::Arc<[(u64, DriveOutcome)]>,
}

/// The effects of a drive's contacts so far, model by model.
type Effects = Vec<(usize, ContactEffect)>;

/// The most outcomes a drive drawn whole may have (past this it is rolled contact by
/// contact).
pub const MAX_DRIVE_OUTCOMES: usize = 4096;

impl DrawnDrive {
    /// Compiles an exact distribution of drive outcomes (the likeliest first, so a draw's
    /// scan is short; equally likely ones keep their order).
    pub fn new(mut outcomes: Vec<(DriveOutcome, f64)>) -> Self {
        outcomes.sort_by(|a, b| b.1.total_cmp(&a.1));
        let probabilities: Vec<f64> = outcomes.iter().map(|o| o.1).collect();
        let table = CumulativeTable::new(&probabilities);
        let thresholds = table.thresholds().iter().copied().chain(std::iter::once(u64::MAX));
        Self { entries: thresholds.zip(outcomes.into_iter().map(|o| o.0)).collect() }
    }

    /// Draws an outcome with one word of `dice` (the first whose threshold is above it).
    #[inline]
    pub fn draw(&self, dice: &mut Dice) -> &DriveOutcome {
        let u = dice.word();
        &self.entries[self.index_of(u)].1
    }

    /// The index of the outcome the word `u` draws.
    #[inline]
    pub fn index_of(&self, u: u64) -> usize {
        let last = self.entries.len().saturating_sub(1);
        self.entries[..last].iter().position(|e| u < e.0).unwrap_or(last)
    }

    /// Every outcome with its cumulative threshold, in the order drawn.
    pub fn entries(&self) -> &[(u64, DriveOutcome)] {
        &self.entries
    }
}

/// The compiled turn.
#[derive(Clone, Debug)]
pub struct TurnPlan {
    /// The scenario.
    pub scenario: Scenario,
    /// The order played (listed indices).
    pub order: Vec<usize>,
    /// For `order = "best"`: every order tried and its objective's estimate.
    pub orders_tried: Vec<(Vec<usize>, f64)>,
    /// Per listed chariot: its single charge compiled on the starting board (its models'
    /// Impact Hits tables, its fight profile, the labels).
    pub plans: Vec<Plan>,
    /// Per listed chariot, per model: Impact Hits tables by the state the model is in.
    pub impact: Vec<Vec<std::sync::Arc<ImpactStates>>>,
    /// The same tables laid out flat for the Move phase's inner loop.
    pub flat_impact: FlatImpact,
    /// The drives: the first chariot's is `nodes[0]`; a node's children index the next
    /// level (nodes, or `finals` after the last chariot).
    pub nodes: Vec<TurnMove>,
    /// The boards after every move.
    pub finals: Vec<FinalBoard>,
    /// The metrics, in report order, and where each is.
    pub metrics: MetricSet,
    /// Where each metric is in `metrics`.
    pub at: TurnMetrics,
    /// Models in all.
    pub models: usize,
    /// The lines of the board ([`lines_of`]): formations touching one another, facing one
    /// way, are one line for `line_breached`.
    pub lines: Vec<Vec<usize>>,
    /// Whether a fight of one chariot whose help is fixed ([`FinalBoard::fixed_support`])
    /// is drawn from its exact distribution (one draw, as a single charge's fight is)
    /// rather than die by die. Always on in a run; the check that both agree turns it off.
    pub fights_from_tables: bool,
    /// Whether a drive without difficult terrain or an obstacle, in a turn of several
    /// chariots, is drawn whole from its exact distribution ([`DrawnDrive`], one word)
    /// rather than contact by contact. Always on in a run; the check that both agree turns
    /// it off.
    pub drives_from_tables: bool,
    /// The fights drawn in one go, worked out as trials first meet them and shared by the
    /// threads (see [`DrawnFights`]).
    pub drawn: std::sync::Arc<DrawnFights>,
    /// What the resolver's threads compiled of this plan (a turn's chain of states) and
    /// left for the next run of the same plan: a sweep, a comparison or a benchmark runs
    /// one plan again and again. A clone starts with none of it.
    pub compiled: ScratchPool,
}

/// Everything a turn's fight of one chariot depends on once its board and its help are
/// fixed: the final board and the fight, whether an earlier fight slew the banner bearer,
/// the chariot's Wounds, and each enemy's state after the Impact Hits (16 bits each:
/// Wounds, mount's Wounds, Prone, Strikes, Fate spent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FightKey {
    /// The final board.
    pub last: u32,
    /// The fight, in the order fought.
    pub fight: u32,
    /// An earlier fight slew the banner bearer whose help this fight would have had.
    pub bearer_slain: bool,
    /// The chariot's Wounds when the fight begins.
    pub wounds_left: u8,
    /// The enemies' states, packed.
    pub survivors: u64,
}

impl std::hash::Hash for FightKey {
    /// Two words (a fight is looked up every trial; a collision only costs a comparison).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let board = u64::from(self.last)
            ^ u64::from(self.fight) << 32
            ^ u64::from(self.wounds_left) << 52
            ^ u64::from(self.bearer_slain) << 63;
        state.write_u64(board);
        state.write_u64(self.survivors);
    }
}

/// A fight of a turn drawn in one go, as a single charge's fight is: its exact outcomes,
/// each with the targets it slew (bit `i`: target `i`), the likeliest first, each beside
/// its cumulative threshold.
#[derive(Clone, Debug)]
pub struct DrawnFight {
    /// Per outcome, likeliest first: P(an outcome up to this one) scaled to 2^64 (as a
    /// [`CumulativeTable`] holds it; the last one's is not read), the outcome, and the
    /// targets it slew. Side by side, so that a draw, which mostly ends at the first
    /// entries, reads the first cache line of the fight rather than all of a table and
    /// then a list: a turn meets a thousand fights and more, too many to stay in cache.
    /// Shared (a clone is a pointer), and held in the same allocation as its count, so a
    /// thread's memo reaches the entries in one step.
    entries: std::sync::Arc<[(u64, (FightOutcome, u32))]>,
}

impl DrawnFight {
    /// Compiles an exact distribution (the likeliest outcomes first, so a draw's scan is
    /// short).
    pub fn new(mut outcomes: Vec<((FightOutcome, u32), f64)>) -> Self {
        outcomes.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let probabilities: Vec<f64> = outcomes.iter().map(|o| o.1).collect();
        let table = CumulativeTable::new(&probabilities);
        let thresholds = table.thresholds().iter().copied().chain(std::iter::once(u64::MAX));
        Self { entries: thresholds.zip(outcomes.into_iter().map(|o| o.0)).collect() }
    }

    /// Draws an outcome with one word of `dice`: the one a [`CumulativeTable`] of the
    /// same probabilities draws from the same word (the first whose threshold is above
    /// it), found by scanning from the likeliest and stopping there.
    #[inline]
    pub fn draw(&self, dice: &mut Dice) -> (FightOutcome, u32) {
        let u = dice.word();
        let last = self.entries.len().saturating_sub(1);
        let at = self.entries[..last].iter().position(|e| u < e.0).unwrap_or(last);
        self.entries[at].1
    }

    /// Every outcome (and the targets it slew) with its cumulative threshold, in the order
    /// drawn: what a compiled turn follows branch by branch.
    pub fn entries(&self) -> &[(u64, (FightOutcome, u32))] {
        &self.entries
    }
}

/// The fights of a turn's plan worked out so far to be drawn in one go (`None`: fought
/// die by die), shared by the threads: each is worked out once, whatever the thread count
/// (the values are the same whoever works them out, so the store changes no result).
#[derive(Debug, Default)]
pub struct DrawnFights {
    fights: std::sync::RwLock<
        std::collections::HashMap<FightKey, Option<DrawnFight>, std::hash::BuildHasherDefault<crate::dice::MixHasher>>,
    >,
}

/// The most fights a plan's store keeps (later ones each thread works out for itself).
const MAX_SHARED_FIGHTS: usize = 100_000;

impl DrawnFights {
    /// The fight of `key`, if some thread worked it out (`Some(None)`: fought die by die).
    pub fn get(&self, key: &FightKey) -> Option<Option<DrawnFight>> {
        // A poisoned lock (a thread panicked while holding it) only costs the sharing.
        self.fights.read().ok()?.get(key).cloned()
    }

    /// How many fights the store holds (drawn in one go or not): the check that a turn's
    /// fights are drawn in one go at all.
    pub fn len(&self) -> usize {
        self.fights.read().map_or(0, |f| f.values().filter(|d| d.is_some()).count())
    }

    /// Whether no fight is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Leaves a fight just worked out for the other threads.
    pub fn leave(&self, key: FightKey, fight: Option<DrawnFight>) {
        if let Ok(mut fights) = self.fights.write()
            && fights.len() < MAX_SHARED_FIGHTS
        {
            fights.entry(key).or_insert(fight);
        }
    }
}

/// What a resolver's threads left of a plan for its next run, whatever its type (the plan
/// does not know the resolver's): at most [`MAX_POOLED`] things. A handle
/// ([`ScratchPool::handle`]) shares it; a clone is a new, empty pool.
#[derive(Default)]
pub struct ScratchPool {
    held: std::sync::Arc<std::sync::Mutex<Vec<Box<dyn std::any::Any + Send>>>>,
}

/// The most things a [`ScratchPool`] keeps.
pub const MAX_POOLED: usize = 16;

impl ScratchPool {
    /// Something of type `T` left here, if any.
    pub fn take<T: 'static>(&self) -> Option<T> {
        let mut held = self.held.lock().ok()?;
        let at = held.iter().position(|b| b.is::<T>())?;
        held.swap_remove(at).downcast::<T>().ok().map(|b| *b)
    }

    /// Leaves `thing` for the next run (dropped when the pool is full).
    pub fn leave<T: Send + 'static>(&self, thing: T) {
        if let Ok(mut held) = self.held.lock()
            && held.len() < MAX_POOLED
        {
            held.push(Box::new(thing));
        }
    }

    /// The same pool, to leave things in later.
    pub fn handle(&self) -> ScratchPool {
        ScratchPool { held: self.held.clone() }
    }

    /// Whether `other` is this pool.
    pub fn is(&self, other: &ScratchPool) -> bool {
        std::sync::Arc::ptr_eq(&self.held, &other.held)
    }
}

impl Clone for ScratchPool {
    /// A clone of a plan may be changed: it starts with nothing compiled.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for ScratchPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = self.held.lock().map_or(0, |h| h.len());
        write!(f, "ScratchPool({held} held)")
    }
}

/// Where each of a turn's metrics is in its [`MetricSet`].
#[derive(Clone, Debug, Default)]
pub struct TurnMetrics {
    /// `line_breached`.
    pub line_breached: usize,
    /// `line_halved`.
    pub line_halved: usize,
    /// `army_broken`, when the army is given.
    pub army_broken: Option<usize>,
    /// `breakthrough_any`.
    pub breakthrough_any: usize,
    /// `kills`.
    pub kills: usize,
    /// `impact_kills`.
    pub impact_kills: usize,
    /// `fight_kills`.
    pub fight_kills: usize,
    /// `fights`.
    pub fights: usize,
    /// `chariots_slain`.
    pub chariots_slain: usize,
    /// `foe_heroes_slain`, when an enemy Hero stands on the board.
    pub foe_heroes_slain: Option<usize>,
    /// `points_slain`, when the models are worth different points (else it is `kills`
    /// times their one value) and all of them together fit a metric's count.
    pub points_slain: Option<usize>,
    /// Per listed chariot, its metrics.
    pub chariot: Vec<ChariotMetrics>,
}

/// Where one chariot's metrics are.
#[derive(Clone, Debug, Default)]
pub struct ChariotMetrics {
    /// `chariotN.impact_kills`.
    pub impact_kills: usize,
    /// `chariotN.fight_fought`.
    pub fight_fought: usize,
    /// `chariotN.fight_won`.
    pub fight_won: usize,
    /// `chariotN.fight_kills`.
    pub fight_kills: usize,
    /// `chariotN.wounds_lost`.
    pub wounds_lost: usize,
    /// `chariotN.slain`.
    pub slain: usize,
    /// `chariotN.breakthrough`.
    pub breakthrough: usize,
    /// `chariotN.blocked`, when its drive can end short of a friendly chariot.
    pub blocked: Option<usize>,
    /// `chariotN.might_spent` and `chariotN.fate_spent`, when a Hero rides it.
    pub hero: Option<(usize, usize)>,
}

/// Impact Hits tables for one model by the state Impact Hits of an earlier chariot left it
/// in: Wounds left (1..), its mount's Wounds left (0 when it has none or lost it), a Hero's
/// Fate left.
#[derive(Clone, Debug)]
pub struct ImpactStates {
    /// Its Wounds.
    pub wounds: u8,
    /// Its mount's Wounds (0: no mount).
    pub mount: u8,
    /// Its Fate.
    pub fate: u8,
    /// Tables by [`ImpactStates::index`].
    pub tables: Vec<ImpactTables>,
}

impl ImpactStates {
    /// The index of a state.
    #[inline]
    pub fn index(&self, left: u8, mount_left: u8, fate_left: u8) -> usize {
        state_index((self.mount, self.fate), (left, mount_left, fate_left))
    }

    /// The table for a model in this state.
    #[inline]
    pub fn table(&self, left: u8, mount_left: u8, fate_left: u8) -> &ImpactTables {
        &self.tables[self.index(left, mount_left, fate_left)]
    }

    fn compile(entry: &TurnEntry, profile: &Profile, rules: &MesbgRules) -> Self {
        let c = &entry.chariot;
        let mount_wounds = profile.mount.map_or(0, |m| m.wounds);
        let fate = profile.hero.map_or(0, |h| h.fate);
        let mut tables = Vec::new();
        for left in 1..=profile.wounds {
            for mount_left in 0..=mount_wounds {
                for fate_left in 0..=fate {
                    let rider = Profile { wounds: left, ..profile.clone() };
                    let table = match (profile.mount, profile.hero) {
                        (Some(mount), _) if mount_left > 0 => ImpactTables::cavalry(
                            c.impact.hits,
                            c.impact.strength,
                            &rider,
                            &Mount { wounds: mount_left, ..mount },
                            rules.cavalry_passed_when,
                            rules.cavalry_impact_hits,
                        ),
                        (_, Some(h)) => ImpactTables::heroic(
                            c.impact.hits,
                            c.impact.strength,
                            profile.defence,
                            left,
                            fate_left,
                            foe_saves(&h, rules),
                        ),
                        _ => ImpactTables::new(c.impact.hits, c.impact.strength, profile.defence, left),
                    };
                    tables.push(table);
                }
            }
        }
        Self { wounds: profile.wounds, mount: mount_wounds, fate, tables }
    }
}

/// Why a turn cannot be compiled.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum TurnError {
    /// Too many boards.
    #[error(
        "the turn has more than {MAX_TURN_BOARDS} possible boards to plan (each chariot's outcomes multiply the next one's); \
         give fewer chariots, or paths that meet fewer models one at a time"
    )]
    TooManyBoards,
    /// A chariot touches too many models at once.
    #[error(
        "chariot {chariot} touches {models} models at the same instant; a turn follows at most {MAX_SIMULTANEOUS_IN_TURN}: \
         change its path"
    )]
    TooManyAtOnce {
        /// Listed chariot, 1-based.
        chariot: usize,
        /// Models touched at once.
        models: usize,
    },
}

impl TurnPlan {
    /// The exact distribution of drive `node`'s outcomes when the models it can reach are
    /// in `states` (Wounds, mount's Wounds, Fate left; one per model of its groups, in
    /// order). `None` when it must be rolled contact by contact: difficult terrain or an
    /// obstacle on it (the chariot's own dice, and its Hero's choices, come into it), a
    /// model met twice, or more than [`MAX_DRIVE_OUTCOMES`] outcomes.
    pub fn drive_distribution(&self, node: usize, states: &[(u8, u8, u8)]) -> Option<DrawnDrive> {
        let mv = &self.nodes[node];
        if mv.difficult_from.is_some() || mv.obstacle.is_some() || mv.groups.is_empty() {
            return None;
        }
        let mut met: Vec<usize> = mv.groups.iter().flat_map(|g| g.models.iter().copied()).collect();
        if met.len() != states.len() {
            return None;
        }
        met.sort_unstable();
        if met.windows(2).any(|w| w[0] == w[1]) {
            return None;
        }
        let mut done: Vec<(DriveOutcome, f64)> = Vec::new();
        // Branches that drove past every group so far.
        let mut going: Vec<(Effects, f64)> = vec![(Vec::new(), 1.0)];
        let mut at = 0;
        for (g, group) in mv.groups.iter().enumerate() {
            // Per branch: the effects so far, its chance, the group's survivors.
            let mut reached: Vec<(Effects, f64, u32)> = going.drain(..).map(|(e, p)| (e, p, 0)).collect();
            for (i, &m) in group.models.iter().enumerate() {
                let (left, mount_left, fate_left) = states[at];
                at += 1;
                let effects = self.contact_effects(mv.chariot, m, (left, mount_left, fate_left));
                let mut next = Vec::with_capacity(reached.len() * effects.len());
                for (seq, p, survivors) in &reached {
                    for &(effect, q) in &effects {
                        let mut seq = seq.clone();
                        seq.push((m, effect));
                        next.push((seq, p * q, survivors | u32::from(!effect.passed) << i));
                    }
                }
                if next.len() + done.len() > MAX_DRIVE_OUTCOMES {
                    return None;
                }
                reached = next;
            }
            for (seq, p, survivors) in reached {
                if survivors != 0 {
                    let key = MoveKey { passed: g as u16, survivors, gone: false };
                    done.push((DriveOutcome { effects: seq, key }, p));
                } else {
                    going.push((seq, p));
                }
            }
        }
        let all = MoveKey { passed: mv.groups.len() as u16, survivors: 0, gone: false };
        done.extend(going.into_iter().map(|(effects, p)| (DriveOutcome { effects, key: all }, p)));
        Some(DrawnDrive::new(done))
    }

    /// The effects chariot `chariot`'s Impact Hits can have on `model` in `state` (Wounds,
    /// mount's Wounds, Fate left), each with its exact chance: the model's table merged by
    /// [`ContactEffect`], in the order their first outcomes come in the table.
    pub fn contact_effects(&self, chariot: usize, model: usize, state: (u8, u8, u8)) -> Vec<(ContactEffect, f64)> {
        let table = self.impact[chariot][model].table(state.0, state.1, state.2);
        let mut effects: Vec<(ContactEffect, f64)> = Vec::new();
        for (o, &p) in table.outcomes.iter().zip(&table.probabilities).filter(|(_, p)| **p > 0.0) {
            let effect = ContactEffect::of(o);
            match effects.iter_mut().find(|(e, _)| *e == effect) {
                Some((_, q)) => *q += p,
                None => effects.push((effect, p)),
            }
        }
        effects
    }
}

/// Compiles a turn in the order the scenario asks for. For `order = "best"`, every order
/// is compiled and played for [`BEST_ORDER_TRIALS`] trials by `play_mean` (the
/// objective's mean over them), and the best is kept.
pub fn compile_turn(scenario: &Scenario, play_mean: &dyn Fn(&TurnPlan, &str) -> f64) -> Result<TurnPlan, TurnError> {
    let n = scenario.more.len() + 1;
    match &scenario.turn {
        TurnOrder::Listed => compile_order(scenario, (0..n).collect()),
        TurnOrder::Given(order) => compile_order(scenario, order.clone()),
        TurnOrder::Best(objective) => {
            let mut best: Option<(TurnPlan, f64)> = None;
            let mut tried = Vec::new();
            for order in permutations(n) {
                let plan = compile_order(scenario, order.clone())?;
                let value = play_mean(&plan, objective.metric());
                tried.push((order, value));
                if best.as_ref().is_none_or(|(_, b)| value > *b + 1e-12) {
                    best = Some((plan, value));
                }
            }
            let mut plan = best.map(|(p, _)| p).ok_or(TurnError::TooManyBoards)?;
            plan.orders_tried = tried;
            Ok(plan)
        }
    }
}

/// The pose after `distance` inches along `legs` (the last leg's end beyond them).
pub fn pose_on_legs(legs: &[Leg], distance: f64) -> Option<Pose> {
    pose_at(legs, distance)
}

/// Every order of `n` items, the listed order first, in lexicographic order.
pub fn permutations(n: usize) -> Vec<Vec<usize>> {
    fn go(prefix: &mut Vec<usize>, n: usize, out: &mut Vec<Vec<usize>>) {
        if prefix.len() == n {
            out.push(prefix.clone());
            return;
        }
        for i in 0..n {
            if !prefix.contains(&i) {
                prefix.push(i);
                go(prefix, n, out);
                prefix.pop();
            }
        }
    }
    let mut out = Vec::new();
    go(&mut Vec::new(), n, &mut out);
    out
}

/// The board as it stands before a chariot moves.
struct Board {
    centres: Vec<Vec2>,
    present: Vec<bool>,
    standing: Vec<(usize, Pose)>,
    /// Per listed chariot: the models of the group it stopped at that survived its hits.
    stopped_at: Vec<Vec<usize>>,
    /// Per listed chariot: it drove through every formation on its path.
    through: Vec<bool>,
}

/// Compiles the turn in `order`.
pub fn compile_order(scenario: &Scenario, order: Vec<usize>) -> Result<TurnPlan, TurnError> {
    let entries = scenario.entries();
    let plans: Vec<Plan> = (0..entries.len()).map(|i| compile(&scenario.view(i))).collect();
    let mut impact = Vec::with_capacity(entries.len());
    for entry in &entries {
        let mut per_model = Vec::new();
        for f in &scenario.formations {
            let warriors = std::sync::Arc::new(ImpactStates::compile(entry, &f.profile, &scenario.rules));
            for mi in 0..f.centres.len() {
                per_model.push(match &f.hero {
                    Some(h) if h.index == mi => {
                        std::sync::Arc::new(ImpactStates::compile(entry, &h.profile, &scenario.rules))
                    }
                    _ => warriors.clone(),
                });
            }
        }
        impact.push(per_model);
    }
    let centres: Vec<Vec2> = scenario.formations.iter().flat_map(|f| f.centres.iter().copied()).collect();
    let models = centres.len();
    let mut compiler =
        Compiler { scenario, entries: &entries, plans: &plans, order: &order, nodes: Vec::new(), finals: Vec::new() };
    let start = Board {
        present: vec![true; models],
        centres,
        standing: Vec::new(),
        stopped_at: vec![Vec::new(); entries.len()],
        through: vec![false; entries.len()],
    };
    compiler.node(0, start)?;
    let Compiler { nodes, finals, .. } = compiler;
    let (metrics, at) = turn_metrics(scenario, &plans, &nodes);
    let heroes: Vec<bool> = plans[0].models.iter().map(|m| m.hero.is_some()).collect();
    let flat_impact = FlatImpact::new(&impact, &heroes);
    Ok(TurnPlan {
        scenario: scenario.clone(),
        order,
        orders_tried: Vec::new(),
        plans,
        flat_impact,
        impact,
        nodes,
        finals,
        metrics,
        at,
        models,
        lines: lines_of(&scenario.formations),
        fights_from_tables: true,
        drives_from_tables: true,
        drawn: Default::default(),
        compiled: Default::default(),
    })
}

struct Compiler<'a> {
    scenario: &'a Scenario,
    entries: &'a [TurnEntry],
    plans: &'a [Plan],
    order: &'a [usize],
    nodes: Vec<TurnMove>,
    finals: Vec<FinalBoard>,
}

impl Compiler<'_> {
    fn boards(&self) -> usize {
        self.nodes.len() + self.finals.len()
    }

    /// Compiles the drive of the chariot at `depth` on `board`, and every board after it.
    fn node(&mut self, depth: usize, board: Board) -> Result<usize, TurnError> {
        if self.boards() >= MAX_TURN_BOARDS {
            return Err(TurnError::TooManyBoards);
        }
        let c = self.order[depth];
        let view = self.scenario.view(c);
        let footprint = view.chariot.base.footprint();
        let discs = self.discs(&board.centres);
        let friends: Vec<(Footprint, Pose)> =
            board.standing.iter().map(|&(k, pose)| (self.entries[k].chariot.base.footprint(), pose)).collect();
        let standing = Standing { present: Some(&board.present), friends: &friends };
        let policy = PathPolicy::of(&view);
        let (pivots, stop_at) = match &policy {
            PathPolicy::Best(objective) => {
                let best = best_pivots(
                    &view,
                    &footprint,
                    &discs,
                    &self.plans[c].models,
                    *objective,
                    view.charge.distance,
                    standing,
                );
                (best.pivots, best.stop_at)
            }
            _ => (Vec::new(), view.charge.distance),
        };
        let d = drive(&view, &footprint, discs, stop_at, standing, |chance, pose| policy.pivot(chance, pose, &pivots));
        let groups: Vec<TurnGroup> =
            d.groups.iter().map(|g| TurnGroup { distance: g.distance, models: g.models.clone() }).collect();
        if let Some(big) = groups.iter().find(|g| g.models.len() > MAX_SIMULTANEOUS_IN_TURN) {
            return Err(TurnError::TooManyAtOnce { chariot: c + 1, models: big.models.len() });
        }
        let terrain_group = d.difficult_from.map_or(groups.len(), |from| {
            groups.iter().position(|g| g.distance >= from - SAME_TIME_INCHES).unwrap_or(groups.len())
        });
        let breakthrough_possible = breaks_through(&d.groups, &self.plans[c].models, &view, &footprint, &d.end);
        let index = self.nodes.len();
        self.nodes.push(TurnMove {
            chariot: c,
            depth,
            centres: board.centres.clone(),
            present: board.present.clone(),
            standing: board.standing.clone(),
            groups,
            legs: d.legs,
            end: d.end,
            pushes: d.pushes,
            obstacle: d.obstacle,
            difficult_from: d.difficult_from,
            terrain_group,
            blocked_by: d.blocked.map(|(k, at)| (board.standing[k].0, at)),
            breakthrough_possible,
            children: Vec::new(),
            child_words: Vec::new(),
        });
        let keys = self.keys(index);
        let mut children = Vec::with_capacity(keys.len());
        for key in keys {
            let next = self.after(index, key, &board);
            let child = if depth + 1 < self.order.len() { self.node(depth + 1, next)? } else { self.last(next)? };
            children.push((key, child));
        }
        children.sort_by_key(|(k, _)| *k);
        self.nodes[index].child_words = children.iter().map(|(k, _)| k.word()).collect();
        self.nodes[index].children = children;
        Ok(index)
    }

    /// Every outcome a drive can come to.
    fn keys(&self, index: usize) -> Vec<MoveKey> {
        let mv = &self.nodes[index];
        let mut keys = Vec::new();
        for (g, group) in mv.groups.iter().enumerate() {
            if mv.difficult_from.is_some() && g == mv.terrain_group {
                keys.push(MoveKey { passed: g as u16, survivors: 0, gone: true });
            }
            for mask in 1..(1u32 << group.models.len()) {
                keys.push(MoveKey { passed: g as u16, survivors: mask, gone: false });
            }
        }
        let all = mv.groups.len() as u16;
        if mv.difficult_from.is_some() && mv.terrain_group == mv.groups.len() {
            keys.push(MoveKey { passed: all, survivors: 0, gone: true });
        }
        keys.push(MoveKey { passed: all, survivors: 0, gone: false });
        if mv.obstacle.is_some() && !keys.contains(&MoveKey { passed: all, survivors: 0, gone: true }) {
            keys.push(MoveKey { passed: all, survivors: 0, gone: true });
        }
        keys
    }

    /// The board after drive `index` came to `key`.
    fn after(&self, index: usize, key: MoveKey, board: &Board) -> Board {
        let mv = &self.nodes[index];
        let mut present = board.present.clone();
        for g in &mv.groups[..usize::from(key.passed).min(mv.groups.len())] {
            for &m in &g.models {
                present[m] = false;
            }
        }
        if key.survivors != 0
            && let Some(g) = mv.groups.get(usize::from(key.passed))
        {
            for (i, &m) in g.models.iter().enumerate() {
                present[m] = key.survivors & (1 << i) != 0;
            }
        }
        let reached = mv.reached(key);
        let mut centres = board.centres.clone();
        for p in mv.pushes.iter().filter(|p| p.at_distance <= reached + geometry::EPSILON) {
            centres[p.model] = p.to;
        }
        let mut standing = board.standing.clone();
        if let Some(pose) = mv.pose_after(key) {
            standing.push((mv.chariot, pose));
        }
        let mut stopped_at = board.stopped_at.clone();
        if key.survivors != 0
            && let Some(g) = mv.groups.get(usize::from(key.passed))
        {
            stopped_at[mv.chariot] =
                g.models.iter().enumerate().filter(|(i, _)| key.survivors & (1 << i) != 0).map(|(_, &m)| m).collect();
        }
        let mut through = board.through.clone();
        through[mv.chariot] = !key.gone && key.survivors == 0 && mv.breakthrough_possible;
        Board { centres, present, standing, stopped_at, through }
    }

    fn discs(&self, centres: &[Vec2]) -> Vec<Disc> {
        let mut discs = Vec::with_capacity(centres.len());
        let mut m = 0;
        for f in &self.scenario.formations {
            for _ in &f.centres {
                discs.push(f.disc_at(centres[m]));
                m += 1;
            }
        }
        discs
    }

    /// The board after the last move: its fights and measurements.
    fn last(&mut self, board: Board) -> Result<usize, TurnError> {
        if self.boards() >= MAX_TURN_BOARDS {
            return Err(TurnError::TooManyBoards);
        }
        let n = self.entries.len();
        let mut poses = vec![None; n];
        for &(k, pose) in &board.standing {
            poses[k] = Some(pose);
        }
        // Who touches whom: a chariot stopped at a group touches its survivors still
        // standing (a later chariot may have slain some); a later chariot stopped at a
        // model an earlier one touches shares it.
        let contacts: Vec<Vec<usize>> = board
            .stopped_at
            .iter()
            .map(|models| models.iter().copied().filter(|&m| board.present[m]).collect())
            .collect();
        let through = board.through.clone();
        let (fights, split_choice) = self.split(&contacts);
        let discs = self.discs(&board.centres);
        let mut support = support::SupportMap::default();
        if self.plans[0].support.any() {
            let models = &self.plans[0].models;
            support = self.plans[0].support.clone();
            support.bases = discs.clone();
            if !support.touching.is_empty() {
                support.touching = support::touching(&discs);
            }
            support.group_of = board.present.iter().map(|&p| if p { usize::MAX } else { 0 }).collect();
            support.engaged = vec![false; models.len()];
            for f in &fights {
                for &m in &f.models {
                    support.engaged[m] = true;
                }
            }
        }
        let fights: Vec<TurnFight> = fights
            .into_iter()
            .map(|mut f| {
                f.cannot_back_away = self.blocked_monsters(&f, &board, &poses, &discs);
                f
            })
            .collect();
        let models = &self.plans[0].models;
        let mut fixed_support = Vec::with_capacity(fights.len());
        let mut used: Vec<usize> = Vec::new();
        let mut fixed = support.any();
        for (i, f) in fights.iter().enumerate() {
            // A banner bearer fought earlier may be slain there: with one such bearer the
            // help is worked out both ways; with more, it depends on the trial.
            let fought: Vec<usize> = fights[..i]
                .iter()
                .flat_map(|e| e.models.iter().copied())
                .filter(|m| support.bearers.contains(m))
                .collect();
            fixed &= f.models.iter().all(|&m| models[m].mount.is_none()) && fought.len() <= 1;
            if !fixed {
                fixed_support.push(None);
                continue;
            }
            let presence = vec![support::Presence { in_fight: true, rider: true, prone: false }; f.models.len()];
            let rules = &self.scenario.rules;
            let help_given = |slain: &[usize]| {
                let earlier = support::EarlierFights { supporters: &used, slain };
                support::foe_support(models, &support, &f.models, 1, &presence, rules, earlier)
            };
            let help = help_given(&[]);
            let bearer_slain = fought.first().map(|&b| (b, help_given(&[b])));
            used.extend(help.supporters.iter().map(|s| s.model));
            fixed_support.push(Some(FixedSupport { help, bearer_slain }));
        }
        let standing = standing_discs(&discs, &board.present);
        let breached = lines_of(&self.scenario.formations)
            .iter()
            .map(|line| {
                let line: Vec<&Formation> = line.iter().map(|&f| &self.scenario.formations[f]).collect();
                corridor_through(&line, &standing)
            })
            .collect();
        let slain_in_moves: Vec<usize> = (0..board.present.len()).filter(|&m| !board.present[m]).collect();
        let mut lost_in_moves = vec![0; self.scenario.formations.len()];
        for &model in &slain_in_moves {
            lost_in_moves[self.plans[0].models[model].formation] += 1;
        }
        self.finals.push(FinalBoard {
            slain_in_moves,
            lost_in_moves,
            centres: board.centres,
            present: board.present,
            poses,
            through,
            fights,
            support,
            fixed_support,
            breached,
            split_choice,
        });
        Ok(self.finals.len() - 1)
    }
}

impl Compiler<'_> {
    /// The Monsters of a fight that cannot Back Away from the chariot(s) they fight: the
    /// standing models, the chariots and the obstacles decide.
    fn blocked_monsters(&self, fight: &TurnFight, board: &Board, poses: &[Option<Pose>], discs: &[Disc]) -> Vec<usize> {
        let walls: Vec<(Vec2, Vec2)> = self
            .scenario
            .terrain
            .iter()
            .filter_map(|t| if let Terrain::Obstacle { from, to, .. } = t { Some((*from, *to)) } else { None })
            .collect();
        let models = &self.plans[0].models;
        fight
            .models
            .iter()
            .copied()
            .filter(|&m| models[m].monster && models[m].chariot.is_none())
            .filter(|&m| {
                let others: Vec<Disc> =
                    (0..discs.len()).filter(|&o| o != m && board.present[o]).map(|o| discs[o]).collect();
                // Backing away from each chariot it fights (several: from the first).
                fight
                    .chariots
                    .iter()
                    .filter_map(|&c| poses[c])
                    .take(1)
                    .any(|pose| !can_back_away(&discs[m], pose.centre, &others, &walls))
            })
            .collect()
    }

    /// Splits the models in contact into fights, no fight with several models on both
    /// sides (2024 pairing). Where the contacts leave no choice (each chariot's models
    /// touch only it, or one model touches several chariots and they touch nothing else)
    /// that is the split. Otherwise every legal split is rehearsed and the one with the
    /// most kills promised ([`promised_kills`]) is fought: the charging player pairs for
    /// the most expected kills.
    fn split(&self, contacts: &[Vec<usize>]) -> (Vec<TurnFight>, Option<(usize, f64)>) {
        let edges: Vec<(usize, usize)> =
            self.order.iter().flat_map(|&c| contacts[c].iter().map(move |&m| (c, m))).collect();
        if edges.is_empty() {
            return (Vec::new(), None);
        }
        let splits = legal_splits(&edges, self.order);
        if splits.len() <= 1 {
            return (splits.into_iter().next().unwrap_or_default(), None);
        }
        let scores: Vec<f64> = splits.iter().map(|s| promised_kills(s, self.plans)).collect();
        let mut best = 0;
        for (i, &v) in scores.iter().enumerate() {
            if v > scores[best] + 1e-12 {
                best = i;
            }
        }
        let tried = splits.len();
        (splits.into_iter().nth(best).unwrap_or_default(), Some((tried, scores[best])))
    }
}

/// Every way to split the contacts `edges` (chariot, model) into fights, each fight one
/// chariot against models it touches or one model against chariots it touches, every
/// chariot and model in exactly one fight; each split's fights in the order of their first
/// chariot in `order`.
pub fn legal_splits(edges: &[(usize, usize)], order: &[usize]) -> Vec<Vec<TurnFight>> {
    let mut splits = Vec::new();
    let n = edges.len();
    if n > 16 {
        // Too many contacts to try every subset: keep each chariot with its own models
        // and give a shared model to the first chariot in the order.
        let mut fights: Vec<TurnFight> = Vec::new();
        let mut taken = Vec::new();
        for &c in order {
            let models: Vec<usize> =
                edges.iter().filter(|(k, m)| *k == c && !taken.contains(m)).map(|&(_, m)| m).collect();
            taken.extend(&models);
            if !models.is_empty() {
                fights.push(TurnFight { chariots: vec![c], models, cannot_back_away: Vec::new() });
            }
        }
        return vec![fights];
    }
    let chariots: Vec<usize> = order.iter().copied().filter(|c| edges.iter().any(|(k, _)| k == c)).collect();
    let mut models: Vec<usize> = edges.iter().map(|&(_, m)| m).collect();
    models.sort_unstable();
    models.dedup();
    for subset in 1u32..(1 << n) {
        let chosen: Vec<(usize, usize)> = (0..n).filter(|i| subset & (1 << i) != 0).map(|i| edges[i]).collect();
        let degree_c = |c: usize| chosen.iter().filter(|(k, _)| *k == c).count();
        let degree_m = |m: usize| chosen.iter().filter(|(_, x)| *x == m).count();
        if chariots.iter().any(|&c| degree_c(c) == 0) || models.iter().any(|&m| degree_m(m) == 0) {
            continue;
        }
        // Every chosen contact joins a chariot with several models or a model with several
        // chariots, never both: each fight is a star.
        if chosen.iter().any(|&(c, m)| degree_c(c) > 1 && degree_m(m) > 1) {
            continue;
        }
        let mut fights: Vec<TurnFight> = Vec::new();
        for &c in &chariots {
            let mine: Vec<usize> = chosen.iter().filter(|(k, _)| *k == c).map(|&(_, m)| m).collect();
            if mine.len() > 1 || degree_m(mine[0]) == 1 {
                fights.push(TurnFight { chariots: vec![c], models: mine, cannot_back_away: Vec::new() });
            } else if let Some(f) = fights.iter_mut().find(|f| f.models == mine) {
                f.chariots.push(c);
            } else {
                fights.push(TurnFight { chariots: vec![c], models: mine, cannot_back_away: Vec::new() });
            }
        }
        splits.push(fights);
    }
    splits
}

/// Kills a split's fights promise, as the charging player weighs them before any die is
/// rolled (a player's estimate, not the exact fight): for each fight, the chance its
/// chariots win the duel (their dice pooled against the models' own, support and Might
/// left out, equal Fight read as a roll-off) times the expected kills of its Strikes spread
/// evenly over its models, each knocked down (Trapped, two rolls) unless a Monster, at full
/// Wounds, at most one kill per model.
pub fn promised_kills(fights: &[TurnFight], plans: &[Plan]) -> f64 {
    let models = &plans[0].models;
    fights
        .iter()
        .map(|f| {
            let ours: u32 = f.chariots.iter().map(|&c| u32::from(plans[c].chariot.attacks)).sum();
            let theirs: u32 = f.models.iter().map(|&m| u32::from(models[m].attacks)).sum();
            let fight_ours = f.chariots.iter().map(|&c| plans[c].chariot.fight).max().unwrap_or(0);
            let fight_theirs = f.models.iter().map(|&m| models[m].fight).max().unwrap_or(0);
            let win = duel_win(ours, theirs, fight_ours.cmp(&fight_theirs));
            // Each chariot's Strikes, spread over its models; a model's expected kills are
            // capped at one.
            let mut expected = vec![0.0; f.models.len()];
            for &c in &f.chariots {
                let per = f64::from(plans[c].chariot.attacks) / f.models.len() as f64;
                for (i, &m) in f.models.iter().enumerate() {
                    let p = plans[c].models[m].struck_by_chariot.probability();
                    let trapped = if models[m].monster { 1.0 } else { 2.0 };
                    expected[i] += per * trapped * p / f64::from(models[m].wounds.max(1));
                }
            }
            win * expected.iter().map(|e| e.min(1.0)).sum::<f64>()
        })
        .sum()
}

/// The chance that `ours` dice beat `theirs` (highest die; a tie to the higher Fight, an
/// equal Fight to a roll-off).
pub fn duel_win(ours: u32, theirs: u32, fight: std::cmp::Ordering) -> f64 {
    let at_most = |k: u32, n: u32| (f64::from(k) / 6.0).powi(n as i32);
    let mut win = 0.0;
    for high in 1..=6u32 {
        let p_ours = at_most(high, ours) - at_most(high - 1, ours);
        let below = at_most(high - 1, theirs);
        let tie = at_most(high, theirs) - below;
        let tie_won = match fight {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Less => 0.0,
            std::cmp::Ordering::Equal => 0.5,
        };
        win += p_ours * (below + tie * tie_won);
    }
    win
}

/// The standing models' bases.
fn standing_discs(discs: &[Disc], present: &[bool]) -> Vec<Disc> {
    discs.iter().zip(present).filter(|(_, p)| **p).map(|(d, _)| *d).collect()
}

/// The lines of a board: formations facing the same way whose models touch one another
/// (shields with spears behind them) form one line, each a list of formation indices.
pub fn lines_of(formations: &[Formation]) -> Vec<Vec<usize>> {
    let n = formations.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let tolerance = support::BASE_CONTACT_MM / geometry::MM_PER_INCH;
    for a in 0..n {
        for b in a + 1..n {
            let (fa, fb) = (&formations[a], &formations[b]);
            let same_facing =
                ((fa.facing - fb.facing).rem_euclid(360.0)).min((fb.facing - fa.facing).rem_euclid(360.0)) < 1e-6;
            let touch = same_facing
                && fa.centres.iter().any(|&ca| {
                    let da = fa.disc_at(ca);
                    fb.centres.iter().any(|&cb| da.distance_to(&fb.disc_at(cb)) <= tolerance)
                });
            if touch {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut lines: Vec<Vec<usize>> = Vec::new();
    for f in 0..n {
        let r = root(&mut parent, f);
        match lines.iter_mut().find(|l| l[0] == r) {
            Some(l) if r != f => l.push(f),
            _ => lines.push(vec![f]),
        }
    }
    lines
}

/// Whether a corridor as wide as one of the line's bases (its widest) runs through the line
/// (formations `line`, facing one way) from its front rank to its back rank, free of the
/// `standing` models' bases (any formation's): a gap at least one base wide between two
/// standing models across the line, over its whole depth. A gap at either end of the line
/// is not a breach: the line is only shorter. A line of which no model stands is breached.
pub fn corridor_through(line: &[&Formation], standing: &[Disc]) -> bool {
    let Some(first) = line.first() else { return false };
    let forward = Vec2::heading(first.facing);
    let right = forward.right();
    let across = |c: Vec2| (c - first.front_centre).dot(right);
    let along = |c: Vec2| (c - first.front_centre).dot(forward);
    let (mut back, mut front, mut width) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for f in line {
        let half = f.oval_mm.map_or(f.radius(), |[w, _]| w / geometry::MM_PER_INCH / 2.0);
        width = width.max(2.0 * half);
        for c in &f.centres {
            back = back.min(along(*c) - f.depth());
            front = front.max(along(*c) + f.depth());
        }
    }
    let reach = |d: &Disc, dir: Vec2| match d.oval {
        Some(o) => {
            let fwd = Vec2::heading(o.facing);
            Vec2::new(o.half_width * dir.dot(fwd.right()), o.half_length * dir.dot(fwd)).length()
        }
        None => d.radius,
    };
    let eps = 1e-6;
    let mut blocked: Vec<(f64, f64)> = standing
        .iter()
        .filter(|d| {
            let y = along(d.centre);
            let r = reach(d, forward);
            y + r > back + eps && y - r < front - eps
        })
        .map(|d| {
            let x = across(d.centre);
            let r = reach(d, right);
            (x - r, x + r)
        })
        .collect();
    blocked.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Not a model of the line stands: it is gone, and breached.
    let Some(&(_, first_end)) = blocked.first() else { return true };
    let mut covered = first_end;
    for &(lo, hi) in &blocked[1..] {
        if lo - covered >= width - eps {
            return true;
        }
        covered = covered.max(hi);
    }
    false
}

/// The metrics of a turn: what broke, the turn's totals, then each chariot's own.
fn turn_metrics(scenario: &Scenario, plans: &[Plan], nodes: &[TurnMove]) -> (MetricSet, TurnMetrics) {
    let mut set = MetricSet::default();
    let mut at = TurnMetrics {
        line_breached: set.add(
            "line_breached",
            "after the turn, a corridor one base wide runs through every rank of some line (formations touching, facing one way), between standing models, free of them",
            true,
        ),
        line_halved: set.add("line_halved", "after the turn, some formation has lost half or more of its models", true),
        ..TurnMetrics::default()
    };
    if scenario.army.is_some() {
        at.army_broken = Some(set.add(
            "army_broken",
            "the army charged has lost enough models to be Broken at the end of the turn (Break Point)",
            true,
        ));
    }
    at.breakthrough_any = set.add("breakthrough_any", "some chariot drove through every formation on its path", true);
    at.kills = set.add("kills", "models slain in the turn (Impact Hits and fights)", false);
    at.impact_kills = set.add("impact_kills", "models slain by Impact Hits in the Move phase", false);
    at.fight_kills = set.add("fight_kills", "models slain in the Fight phase", false);
    at.fights = set.add("fights", "fights fought in the Fight phase", false);
    at.chariots_slain = set.add("chariots_slain", "chariots slain in the turn", false);
    let heroes = plans[0].models.iter().any(|m| m.hero.is_some());
    if heroes {
        at.foe_heroes_slain = Some(set.add("foe_heroes_slain", "enemy Heroes slain in the turn", false));
    }
    let mut points: Vec<u32> = plans[0].models.iter().map(|m| m.points).collect();
    let total: u64 = points.iter().map(|&p| u64::from(p)).sum();
    points.sort_unstable();
    points.dedup();
    if points.len() > 1 && total <= u64::from(u16::MAX) {
        at.points_slain = Some(set.add(
            "points_slain",
            "points of the models slain in the turn, each at its own profile's points",
            false,
        ));
    }
    for (i, plan) in plans.iter().enumerate() {
        let k = i + 1;
        let name = |what: &str| format!("chariot{k}.{what}");
        let may_be_blocked = nodes.iter().any(|n| n.chariot == i && n.blocked_by.is_some());
        at.chariot.push(ChariotMetrics {
            impact_kills: set.add(name("impact_kills"), format!("models chariot {k} slew with Impact Hits"), false),
            fight_fought: set.add(name("fight_fought"), format!("chariot {k} ended its charge in a fight"), true),
            fight_won: set.add(name("fight_won"), format!("chariot {k} won its fight"), true),
            fight_kills: set.add(name("fight_kills"), format!("models chariot {k} slew in its fight"), false),
            wounds_lost: set.add(name("wounds_lost"), format!("Wounds chariot {k} lost"), false),
            slain: set.add(name("slain"), format!("chariot {k} was slain"), true),
            breakthrough: set.add(
                name("breakthrough"),
                format!("chariot {k} drove through every formation on its path"),
                true,
            ),
            blocked: may_be_blocked.then(|| {
                set.add(name("blocked"), format!("chariot {k}'s drive ended short of a friendly chariot"), true)
            }),
            hero: plan.chariot.hero.map(|_| {
                (
                    set.add(name("might_spent"), format!("Might the Hero on chariot {k} spent"), false),
                    set.add(name("fate_spent"), format!("Fate the Hero on chariot {k} spent"), false),
                )
            }),
        });
    }
    (set, at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{Phase, sampled_index, trial_dice};

    #[test]
    fn a_drawn_fight_draws_what_its_cumulative_table_draws_from_the_same_word() {
        let outcome = |kills: u8| FightOutcome { won: kills > 0, kills, ..FightOutcome::default() };
        // Ties in probability, a zero one, and one far likelier than the rest.
        let probabilities = [0.05, 0.6, 0.0, 0.05, 0.2, 0.1];
        let outcomes: Vec<((FightOutcome, u32), f64)> =
            probabilities.iter().enumerate().map(|(k, &p)| ((outcome(k as u8), k as u32), p)).collect();
        let fight = DrawnFight::new(outcomes.clone());
        let mut sorted = outcomes;
        sorted.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let table = CumulativeTable::new(&sorted.iter().map(|o| o.1).collect::<Vec<f64>>());
        let (mut a, mut b) = (trial_dice(3, 9, 0, Phase::Fight), trial_dice(3, 9, 0, Phase::Fight));
        let mut drawn = [0u32; 6];
        for _ in 0..20_000 {
            let got = fight.draw(&mut a);
            assert_eq!(got, sorted[sampled_index(table.thresholds(), b.word())].0);
            drawn[got.1 as usize] += 1;
        }
        assert_eq!(drawn[2], 0, "an outcome of chance 0 is never drawn");
        assert!(drawn[1] > 11_000 && drawn[1] < 13_000, "the likeliest near 60%: {drawn:?}");
        // Words on and around each threshold.
        for &t in table.thresholds() {
            for u in [t.saturating_sub(1), t, t.saturating_add(1)] {
                let at = fight.entries[..5].iter().position(|e| u < e.0).unwrap_or(5);
                assert_eq!(at, sampled_index(table.thresholds(), u), "word {u}");
            }
        }
    }

    #[test]
    fn the_flat_impact_tables_draw_what_each_state_s_table_draws_from_the_same_word() {
        let text = include_str!("../../../scenarios/mesbg/turn-three-khandish-into-shield-wall.toml");
        let scenario = crate::mesbg::scenario::parse(text, "turn.toml").expect("the example reads");
        let entry = &scenario.entries()[0];
        let captain = scenario.formations[0].hero.as_ref().expect("a Captain").profile.clone();
        let warrior = scenario.formations[0].profile.clone();
        let horse = Mount { defence: 4, wounds: 2, attacks: 0, fight: 0, strength: 3 };
        // Infantry, a Hero with Fate, cavalry, and a Hero on a horse: every index of
        // Wounds, mount's Wounds and Fate.
        let profiles = [
            warrior.clone(),
            captain.clone(),
            Profile { mount: Some(horse), ..warrior },
            Profile { mount: Some(horse), ..captain },
        ];
        let states: Vec<std::sync::Arc<ImpactStates>> =
            profiles.iter().map(|p| std::sync::Arc::new(ImpactStates::compile(entry, p, &scenario.rules))).collect();
        assert!(states[3].mount > 0 && states[3].fate > 0 && states[3].wounds > 1, "every dimension varies");
        let heroes = [false, true, false, true];
        // Two chariots (the second's tables the same), so the chariot's offset counts too.
        let flat = FlatImpact::new(&[states.clone(), states.clone()], &heroes);
        for (m, st) in states.iter().enumerate() {
            assert_eq!(flat.opening(m), (st.wounds, st.mount, st.fate), "model {m} untouched");
            // The tables in the order `ImpactStates::compile` makes them, counted here rather
            // than indexed by the formula the flat tables share.
            let mut compiled = st.tables.iter();
            for left in 1..=st.wounds {
                for mount_left in 0..=st.mount {
                    for fate_left in 0..=st.fate {
                        let table = compiled.next().expect("a table per state");
                        let (mut a, mut b) =
                            (trial_dice(5, m as u64, 0, Phase::Charge), trial_dice(5, m as u64, 0, Phase::Charge));
                        for _ in 0..500 {
                            let (got, hero) = flat.sample((1, m), (left, mount_left, fate_left), &mut a);
                            assert_eq!(got, table.sample(&mut b), "model {m} at {left}/{mount_left}/{fate_left}");
                            assert_eq!(hero, heroes[m]);
                        }
                    }
                }
            }
            assert!(compiled.next().is_none(), "no table left over");
        }
    }

    #[test]
    fn a_move_keys_word_tells_keys_apart() {
        let keys = [
            MoveKey { passed: 0, survivors: 0, gone: false },
            MoveKey { passed: 0, survivors: 0, gone: true },
            MoveKey { passed: 0, survivors: 1, gone: false },
            MoveKey { passed: 1, survivors: 0, gone: false },
            MoveKey { passed: u16::MAX, survivors: u32::MAX, gone: true },
            MoveKey { passed: u16::MAX, survivors: u32::MAX, gone: false },
            MoveKey { passed: 1, survivors: u32::MAX, gone: true },
        ];
        for a in keys {
            for b in keys {
                assert_eq!(a.word() == b.word(), a == b, "{a:?} {b:?}");
            }
        }
    }
}
