//! What a trial can tell a replay: its events, and the observers that hear them (the
//! silent one compiles away on the fast path).

use super::*;

/// Something that happened in a trial, for replays.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The chariot touched a model and rolled its Impact Hits.
    Contact {
        /// Distance driven, inches.
        distance: f64,
        /// Model index in the plan.
        model: usize,
        /// What the hits did.
        outcome: ContactOutcome,
    },
    /// A cavalry model beaten by the chariot is Knocked Flying: its rider takes a
    /// Strength 3 hit and is Prone.
    KnockedFlying {
        /// The model.
        model: usize,
        /// Whether the hit wounded the rider.
        wounded: bool,
        /// Whether that Wound was his last (he counts as a casualty).
        slain: bool,
    },
    /// A survivor stopped the chariot in base contact.
    Stopped {
        /// Distance driven, inches.
        distance: f64,
        /// The surviving models in contact.
        by: Vec<usize>,
    },
    /// Nothing stopped the chariot; it drove its full Move.
    DroveOn {
        /// Whether that carried it through every formation on its path.
        breakthrough: bool,
    },
    /// Spears and pikes supporting the models in the fight (each a die, and a Strike if
    /// their side wins), and whether a banner lets that side re-roll a duel die.
    Support {
        /// The supporting models.
        supporters: Vec<usize>,
        /// A standing banner bearer is within 3" of the fight.
        banner: bool,
    },
    /// The banner's re-roll: the enemy gave up its lowest duel die for a new one.
    BannerReroll {
        /// The die given up (as it showed, -1 applied).
        from: u8,
        /// The die rolled in its place (as it shows).
        to: u8,
    },
    /// The duel of the fight.
    Duel {
        /// Dice the chariot rolled.
        chariot_dice: u32,
        /// Dice the enemy rolled.
        enemy_dice: u32,
        /// The chariot's highest die.
        chariot_high: u8,
        /// The enemy's highest die.
        enemy_high: u8,
        /// The roll-off die, when tied on dice and Fight.
        roll_off: Option<u8>,
        /// Whether the chariot won.
        chariot_won: bool,
    },
    /// The fight's result (as counted in the metrics).
    Fight {
        /// The chariot won the duel.
        chariot_won: bool,
        /// Models its Strikes slew.
        kills: u8,
        /// Wounds it lost.
        wounds_lost: u8,
    },
    /// The chariot's player chose how to hold its hand-and-a-half weapon for this fight.
    Grip {
        /// Two-handed (else one-handed).
        two_handed: bool,
        /// Chosen for this fight by the grip policy `best` (else always held so).
        chosen: bool,
    },
    /// The Hero spent Might on a roll of the chariot.
    Might {
        /// Points spent.
        points: u8,
        /// On what: "duel" or "wound".
        on: &'static str,
    },
    /// The Hero spent Fate to prevent a Wound on the chariot (or on himself).
    Fate {
        /// The Fate rolls, one per point spent.
        rolls: Vec<u8>,
        /// Might added to the last roll.
        might: u8,
        /// Whether the Wound was prevented.
        saved: bool,
    },
    /// The difficult-terrain test slew the chariot on entering: it stops there.
    SlainByTerrain {
        /// Distance driven, inches.
        distance: f64,
    },
    /// The winner declared how its Strikes go, before rolling.
    StrikesDeclared {
        /// Strikes per model, in contact order.
        split: Vec<(usize, u8)>,
    },
    /// The chariot was slain and the Hero thrown (Knocked Flying: a Strength 3 hit, then Prone).
    Thrown {
        /// Wounds the hit caused him (after Fate).
        wounds: u8,
        /// Whether it slew him.
        slain: bool,
    },
    /// The difficult-terrain test on entering difficult terrain.
    TerrainTest {
        /// The D6 (a 1 costs the chariot a Wound unless Might turns it).
        roll: u8,
        /// Might spent to turn a 1 into a 2.
        might: u8,
    },
    /// The chariot drove into an obstacle: three Strength 6 hits on it.
    Obstacle {
        /// Hits that wounded (before Fate).
        wounding_hits: u8,
    },
    /// Two chariots fought: the smaller Backs Away (a D6 for two the same size).
    BacksAway {
        /// Whether it is our chariot that Backs Away.
        ours: bool,
        /// The D6 for chariots of one size.
        roll: Option<u8>,
    },
    /// An enemy Hero spent Might.
    FoeMight {
        /// The Hero.
        model: usize,
        /// Points spent.
        points: u8,
        /// On what: "duel", "wound" or "Fate".
        on: &'static str,
    },
    /// An enemy Hero spent Fate against a Wound from the chariot's Strikes.
    FoeFate {
        /// The Hero.
        model: usize,
        /// Fate points spent on the Wound.
        points: u8,
        /// Whether the Wound was prevented.
        saved: bool,
    },
    /// In a turn: the chariot (1-based, as listed) that charges next.
    TurnCharge {
        /// Its number in the list.
        chariot: usize,
        /// Its place in the order of the turn (1-based).
        order: usize,
    },
    /// In a turn: the chariot's drive ended just short of a friendly chariot.
    Blocked {
        /// The friendly chariot in the way (1-based, as listed).
        by: usize,
        /// Distance driven, inches.
        distance: f64,
    },
    /// In a turn: a fight of the Fight phase begins.
    TurnFight {
        /// The chariots in it (1-based, as listed).
        chariots: Vec<usize>,
        /// The enemy models in it.
        models: Vec<usize>,
    },
    /// In a fight of several chariots: the Strikes one chariot makes, or the enemy's at one
    /// chariot.
    StrikesOf {
        /// The chariot (1-based, as listed).
        chariot: usize,
        /// Whether it strikes (else it is struck).
        striking: bool,
    },
    /// A remark about the trace itself.
    Note {
        /// The remark.
        text: String,
    },
    /// A Strike by the chariot on a model (the model is in `target`), or on the chariot
    /// by a model (`target` is `None`, `by` the striker).
    Strike {
        /// The striking model, when the chariot is struck.
        by: Option<usize>,
        /// The model struck, when the chariot strikes.
        target: Option<usize>,
        /// Rolls made (2 against a Trapped model).
        rolls: u8,
        /// Wounds caused (after Fate).
        wounds: u8,
        /// Wounds the dice caused that Fate then prevented.
        #[serde(skip_serializing_if = "is_zero")]
        prevented: u8,
        /// Whether the target was slain by it.
        slain: bool,
        /// Whether that made the model a casualty: the rider (or a model on foot) slain,
        /// not only a mount.
        casualty: bool,
    },
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// Receives the events of a trial. The silent observer compiles away entirely.
pub trait Observer {
    /// Whether anyone listens (lets a trial skip work that only feeds the trace).
    const ENABLED: bool;

    /// Records an event (built only when someone listens).
    fn note(&mut self, event: impl FnOnce() -> Event);
}

/// Listens to nothing: the fast path.
pub struct Silent;

impl Observer for Silent {
    const ENABLED: bool = false;
    #[inline(always)]
    fn note(&mut self, _event: impl FnOnce() -> Event) {}
}

/// Keeps every event.
#[derive(Default)]
pub struct Trace(pub Vec<Event>);

impl Observer for Trace {
    const ENABLED: bool = true;
    fn note(&mut self, event: impl FnOnce() -> Event) {
        self.0.push(event());
    }
}
