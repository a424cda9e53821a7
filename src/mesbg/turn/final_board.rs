//! The board after every chariot has moved: who fights whom, the help each fight has, and
//! what the project measures of the line before any fight.

use super::measure::{breached_lines, lines_of};
use super::pairing::{SplitChoice, TurnFight, best_split, fight_worth};
use crate::geometry::{Disc, Footprint, Pose, Vec2};
use crate::mesbg::plan::{Plan, can_back_away, shieldwall, support};
use crate::mesbg::rules::fight as mesbg_fight;
use crate::mesbg::scenario::{FightOrder, Scenario, Terrain, TurnEntry};

/// What every board of a turn shares: the scenario, its chariots, each one's single charge
/// compiled on the starting board, and the order they charge in.
pub struct TurnSetting<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// Its chariots, as listed.
    pub entries: &'a [TurnEntry],
    /// Per listed chariot, its single charge on the starting board.
    pub plans: &'a [Plan],
    /// The order of the turn (listed indices).
    pub order: &'a [usize],
    /// How wide a corridor through a line must be (`None`: one of the line's bases).
    pub corridor_width: Option<f64>,
}

impl TurnSetting<'_> {
    /// The models' bases where `centres` puts them.
    pub fn discs(&self, centres: &[Vec2]) -> Vec<Disc> {
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
}

/// The board as it stands before a chariot moves.
pub struct MovingBoard {
    /// Where every model stands (pushes moved some).
    pub centres: Vec<Vec2>,
    /// Which models stand (the others were slain by Impact Hits).
    pub present: Vec<bool>,
    /// The chariots standing: (listed index, pose).
    pub standing: Vec<(usize, Pose)>,
    /// Per listed chariot: the models of the group it stopped at that survived its hits.
    pub stopped_at: Vec<Vec<usize>>,
    /// Per listed chariot: it drove through every formation on its path.
    pub through: Vec<bool>,
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
    pub split_choice: Option<SplitChoice>,
    /// Per model: the standing models of its shield wall that touch it on this board
    /// (empty outside a wall); a fight reads which of them still stand, not Prone.
    pub wall: Vec<Vec<usize>>,
}

/// A fight's help worked out with the plan: as it stands when every model fought earlier
/// in the turn still stands, and, when one banner bearer is fought in an earlier fight,
/// as it stands once he was slain there (his banner gone; nothing else about the help can
/// change, since a model in a fight never supports).
#[derive(Clone, Debug)]
pub struct FixedSupport {
    /// Every model fought earlier still standing.
    pub help: mesbg_fight::FoeSupport,
    /// The bearer fought earlier, and the help once he is down there (slain, or knocked
    /// Prone by a chariot that won).
    pub bearer_slain: Option<(usize, mesbg_fight::FoeSupport)>,
}

impl FixedSupport {
    /// The help, given the models slain and knocked Prone in the fights fought before this
    /// one (a bearer down either way gives no banner).
    #[inline]
    pub fn given(&self, slain_earlier: &[usize], prone_earlier: &[usize]) -> &mesbg_fight::FoeSupport {
        match &self.bearer_slain {
            Some((bearer, help)) if slain_earlier.contains(bearer) || prone_earlier.contains(bearer) => help,
            _ => &self.help,
        }
    }
}

/// The board after the last move, `board`: its fights, their help, and the line's
/// measurements before any fight.
pub fn final_board(setting: &TurnSetting, board: MovingBoard) -> FinalBoard {
    let n = setting.entries.len();
    let mut poses = vec![None; n];
    for &(k, pose) in &board.standing {
        poses[k] = Some(pose);
    }
    // Who touches whom: a chariot stopped at a group touches its survivors still
    // standing (a later chariot may have slain some); a later chariot stopped at a
    // model an earlier one touches shares it.
    let contacts: Vec<Vec<usize>> =
        board.stopped_at.iter().map(|models| models.iter().copied().filter(|&m| board.present[m]).collect()).collect();
    let through = board.through.clone();
    let discs = setting.discs(&board.centres);
    let mut support = support::SupportMap::default();
    if setting.plans[0].support.any() {
        let models = &setting.plans[0].models;
        support = setting.plans[0].support.clone();
        support.bases = discs.clone();
        if !support.touching.is_empty() {
            support.touching = support::touching(&discs);
        }
        support.group_of = board.present.iter().map(|&p| if p { usize::MAX } else { 0 }).collect();
        // Every model in base contact is in some fight, however they are split.
        support.engaged = vec![false; models.len()];
        for &m in contacts.iter().flatten() {
            support.engaged[m] = true;
        }
    }
    let wall = shieldwall::wall_on_board(&setting.plans[0].models, &discs, &board.present);
    let braced_at_start = |m: usize| wall.get(m).is_some_and(|n| n.len() >= shieldwall::BRACING_NEIGHBOURS);
    let (fights, split_choice) = split(setting, &contacts, &support, &braced_at_start);
    let mut fights: Vec<TurnFight> = fights
        .into_iter()
        .map(|mut f| {
            f.cannot_back_away = blocked_monsters(setting, &f, &board, &poses, &discs);
            f
        })
        .collect();
    let walled = wall.iter().any(|n| !n.is_empty());
    if setting.scenario.turn_rules.fight_order == FightOrder::HelpersFirst && (support.any() || walled) {
        // First the fights whose banner bearer helps another fight, or whose models brace
        // a model of another fight in their shield wall (a stable order: the rest as the
        // chariots charged).
        let helps = |f: &TurnFight| {
            let banner = f
                .models
                .iter()
                .filter(|m| support.bearers.contains(m))
                .any(|&b| fights_reached_by_banner(&fights, &discs, b).into_iter().any(|g| !std::ptr::eq(g, f)));
            let bracing = f.models.iter().any(|&m| {
                fights
                    .iter()
                    .filter(|g| !std::ptr::eq(*g, f))
                    .flat_map(|g| &g.models)
                    .any(|&n| wall[n].len() >= shieldwall::BRACING_NEIGHBOURS && wall[n].contains(&m))
            });
            banner || bracing
        };
        let helpers: Vec<bool> = fights.iter().map(helps).collect();
        let mut order: Vec<usize> = (0..fights.len()).collect();
        order.sort_by_key(|&i| !helpers[i]);
        let mut taken: Vec<Option<TurnFight>> = fights.into_iter().map(Some).collect();
        fights = order.into_iter().filter_map(|i| taken[i].take()).collect();
    }
    let models = &setting.plans[0].models;
    let mut fixed_support = Vec::with_capacity(fights.len());
    let mut used: Vec<usize> = Vec::new();
    let mut fixed = support.any();
    for (i, f) in fights.iter().enumerate() {
        // A banner bearer fought earlier may be slain there: with one such bearer the
        // help is worked out both ways; with more, it depends on the trial.
        let fought: Vec<usize> =
            fights[..i].iter().flat_map(|e| e.models.iter().copied()).filter(|m| support.bearers.contains(m)).collect();
        fixed &= f.models.iter().all(|&m| models[m].mount.is_none()) && fought.len() <= 1;
        if !fixed {
            fixed_support.push(None);
            continue;
        }
        let presence = vec![support::Presence { in_fight: true, rider: true, prone: false }; f.models.len()];
        let rules = &setting.scenario.rules;
        let help_given = |slain: &[usize]| {
            let earlier = support::EarlierFights { supporters: &used, slain, prone: &[] };
            support::foe_support(models, &support, &f.models, 1, &presence, rules, earlier)
        };
        let help = help_given(&[]);
        let bearer_slain = fought.first().map(|&b| (b, help_given(&[b])));
        used.extend(help.supporters.iter().map(|s| s.model));
        fixed_support.push(Some(FixedSupport { help, bearer_slain }));
    }
    let breached = breached_lines(
        &setting.scenario.formations,
        &lines_of(&setting.scenario.formations),
        &board.centres,
        |m| board.present[m],
        setting.corridor_width,
    );
    let slain_in_moves: Vec<usize> = (0..board.present.len()).filter(|&m| !board.present[m]).collect();
    let mut lost_in_moves = vec![0; setting.scenario.formations.len()];
    for &model in &slain_in_moves {
        lost_in_moves[setting.plans[0].models[model].formation] += 1;
    }
    FinalBoard {
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
        wall,
    }
}

/// The fights a banner borne by model `b` reaches: those with a model within the banner's
/// range of him.
fn fights_reached_by_banner<'f>(fights: &'f [TurnFight], discs: &[Disc], b: usize) -> Vec<&'f TurnFight> {
    let range = support::BANNER_RANGE_INCHES + 1e-9;
    fights.iter().filter(|g| g.models.iter().any(|&m| m == b || discs[m].distance_to(&discs[b]) <= range)).collect()
}

/// The Monsters of a fight that cannot Back Away from the chariot(s) they fight: the
/// standing models, the chariots and the obstacles decide.
fn blocked_monsters(
    setting: &TurnSetting,
    fight: &TurnFight,
    board: &MovingBoard,
    poses: &[Option<Pose>],
    discs: &[Disc],
) -> Vec<usize> {
    let walls: Vec<(Vec2, Vec2)> = setting
        .scenario
        .terrain
        .iter()
        .filter_map(|t| if let Terrain::Obstacle { from, to, .. } = t { Some((*from, *to)) } else { None })
        .collect();
    let models = &setting.plans[0].models;
    // Every chariot standing on the board is in the way, those fought included.
    let chariots: Vec<(Footprint, Pose)> = poses
        .iter()
        .enumerate()
        .filter_map(|(k, pose)| pose.map(|p| (setting.entries[k].chariot.base.footprint(), p)))
        .collect();
    fight
        .models
        .iter()
        .copied()
        .filter(|&m| models[m].monster && models[m].chariot.is_none())
        .filter(|&m| {
            let others: Vec<Disc> =
                (0..discs.len()).filter(|&o| o != m && board.present[o]).map(|o| discs[o]).collect();
            // Trapped when it can Back Away from none of the chariots it fought: directly
            // away from each, some model, chariot or obstacle is in the way.
            let fought: Vec<Pose> = fight.chariots.iter().filter_map(|&c| poses[c]).collect();
            !fought.is_empty()
                && fought.iter().all(|pose| !can_back_away(&discs[m], pose.centre, &others, &chariots, &walls))
        })
        .collect()
}

/// Splits the models in contact into fights, no fight with several models on both
/// sides (2024 pairing). Where the contacts leave no choice (each chariot's models
/// touch only it, or one model touches several chariots and they touch nothing else)
/// that is the split. Otherwise the charging player pairs for the most expected models
/// slain ([`best_split`]), each fight weighed by its own outcome distribution
/// ([`expected_fight_kills`]) with the help it would have if fought first.
fn split(
    setting: &TurnSetting,
    contacts: &[Vec<usize>],
    support: &support::SupportMap,
    braced: &dyn Fn(usize) -> bool,
) -> (Vec<TurnFight>, Option<SplitChoice>) {
    let edges: Vec<(usize, usize)> =
        setting.order.iter().flat_map(|&c| contacts[c].iter().map(move |&m| (c, m))).collect();
    if edges.is_empty() {
        return (Vec::new(), None);
    }
    let models = &setting.plans[0].models;
    let rules = &setting.scenario.rules;
    let strike_order = setting.scenario.turn_rules.strike_order;
    let formations = &setting.scenario.formations;
    let mount_wounds = |m: usize| formations[models[m].formation].profile.mount.map_or(0, |mt| mt.wounds);
    let mut kills = |f: &TurnFight| {
        let help = if support.any() {
            let presence = vec![support::Presence { in_fight: true, rider: true, prone: false }; f.models.len()];
            support::foe_support(models, support, &f.models, 1, &presence, rules, support::EarlierFights::NONE)
        } else {
            mesbg_fight::FoeSupport::default()
        };
        fight_worth(f, setting.plans, &help, strike_order, (&mount_wounds, braced))
    };
    best_split(&edges, setting.order, &mut kills)
}
