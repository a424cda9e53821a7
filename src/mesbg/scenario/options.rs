//! What each rule option and policy means, in words, for every report's ruleset table.

use super::*;

impl Heroism {
    /// The enemy Hero's policies with what they mean, named by the profile path `at`, for
    /// reports.
    pub fn policies(&self, at: &str, rules: &MesbgRules) -> Vec<RuleOption> {
        vec![
            RuleOption::of(
                format!("{at}.might_policy"),
                &self.might_policy,
                &MightPolicy::default(),
                match self.might_policy {
                    MightPolicy::None => "the enemy Hero spends no Might in the fight",
                    MightPolicy::WinDuel => {
                        "the enemy Hero raises his own highest duel die by the least that wins (or reaches a roll-off), answering the chariot's Might"
                    }
                    MightPolicy::Wound => "the enemy Hero's Might turns his failed To Wound rolls against the chariot",
                    MightPolicy::WinDuelThenWound => {
                        "the enemy Hero's Might first wins the duel (the least that wins or reaches a roll-off), then turns his failed To Wound rolls"
                    }
                },
            ),
            RuleOption::of(
                format!("{at}.might_on_saves"),
                &self.might_on_saves,
                &true,
                match (self.might_on_saves, rules.might_on_fate) {
                    (true, true) => {
                        "the enemy Hero's Might raises a failed Fate roll against a Strike to a 4 whenever it is enough (never against Impact Hits)"
                    }
                    _ => "the enemy Hero never spends Might on a Fate roll",
                },
            ),
            RuleOption::of(
                format!("{at}.fate_policy"),
                &self.fate_policy,
                &FoeFatePolicy::default(),
                match self.fate_policy {
                    FoeFatePolicy::EveryWound => {
                        "the enemy Hero spends Fate on every Wound he suffers, Impact Hits included"
                    }
                    FoeFatePolicy::LethalOnly => "the enemy Hero spends Fate only on a Wound that would slay him",
                },
            ),
        ]
    }
}

impl MesbgRules {
    /// Every `[rules]` option with its value, default and meaning, for reports.
    pub fn options(&self) -> Vec<RuleOption> {
        let d = MesbgRules::default();
        vec![
            RuleOption::of(
                "fate",
                &self.fate,
                &d.fate,
                match self.fate {
                    FateRule::Retry => {
                        "a failed Fate roll may be followed by another Fate point on the same Wound until it is prevented or Fate runs out"
                    }
                    FateRule::Once => "one Fate point (one D6, 4+) per Wound",
                },
            ),
            RuleOption::of(
                "might_on_fate",
                &self.might_on_fate,
                &d.might_on_fate,
                if self.might_on_fate {
                    "Might can raise a Fate roll, +1 a point"
                } else {
                    "Might never modifies a Fate roll"
                },
            ),
            RuleOption::of(
                "strike_split",
                &self.strike_split,
                &d.strike_split,
                match self.strike_split {
                    StrikeSplit::Declared => {
                        "a winner fighting several models (or rider and mount) declares which Strikes go against which model before rolling To Wound, the split that maximises expected kills"
                    }
                    StrikeSplit::OneAtATime => {
                        "each Strike is aimed after the previous one is rolled, by strike_allocation"
                    }
                },
            ),
            RuleOption::of(
                "strike_allocation",
                &self.strike_allocation,
                &d.strike_allocation,
                match (self.strike_split, self.strike_allocation) {
                    (StrikeSplit::Declared, _) => "not used: Strikes are declared before rolling",
                    (_, StrikeAllocation::MostWoundedFirst) => {
                        "each Strike at the standing model with the fewest Wounds left"
                    }
                    (_, StrikeAllocation::EasiestFirst) => "each Strike at the standing model with the lowest Defence",
                },
            ),
            RuleOption::of(
                "prone_counts_as_trapped",
                &self.prone_counts_as_trapped,
                &d.prone_counts_as_trapped,
                if self.prone_counts_as_trapped {
                    "models knocked Prone by the winning chariot are Trapped for its Strikes: two To Wound rolls per Strike"
                } else {
                    "models knocked Prone by the winning chariot take one To Wound roll per Strike (a model already Prone is still Trapped)"
                },
            ),
            RuleOption::of(
                "cavalry_passed_when",
                &self.cavalry_passed_when,
                &d.cavalry_passed_when,
                match self.cavalry_passed_when {
                    CavalryPassed::RiderSlain => {
                        "a cavalry model is a casualty when its rider dies (2024): the chariot drives on"
                    }
                    CavalryPassed::RiderSlainAndMountGone => {
                        "the chariot drives on past cavalry only when the rider is slain and the mount slain or fled"
                    }
                },
            ),
            RuleOption::of(
                "break_point",
                &self.break_point,
                &d.break_point,
                match self.break_point {
                    BreakPoint::HalfOrMore => "an army that has lost half or more of its starting models is Broken",
                    BreakPoint::MoreThanHalf => "an army that has lost more than half of its starting models is Broken",
                },
            ),
            RuleOption::of(
                "difficult_terrain_measure",
                &self.difficult_terrain_measure,
                &d.difficult_terrain_measure,
                match self.difficult_terrain_measure {
                    TerrainMeasure::AnyPart => {
                        "within difficult terrain means any part of the chariot's base inside it (Move halved, D6 test)"
                    }
                    TerrainMeasure::Centre => {
                        "within difficult terrain means the centre of the chariot's base inside it (Move halved, D6 test)"
                    }
                },
            ),
            RuleOption::of(
                "supporter_fight_counts",
                &self.supporter_fight_counts,
                &d.supporter_fight_counts,
                if self.supporter_fight_counts {
                    "a supporting spear or pike rolls its die at its own Fight: its Fight counts for its side's highest in a tied duel"
                } else {
                    "a supporting spear or pike adds a die only; ties go by the Fight of the models in the fight"
                },
            ),
            RuleOption::of(
                "banner_reroll",
                &self.banner_reroll,
                &d.banner_reroll,
                match self.banner_reroll {
                    BannerReroll::LowestWhenLosingOrTied => {
                        "a side with a standing banner within 3\" re-rolls its lowest duel die, before any Might, only when that raises its chance to win the duel: when behind, or tied while the other side's Fight is higher, or tied at equal Fight when a re-roll beats the roll-off's 1/2; never on a tie its Fight already wins"
                    }
                    BannerReroll::Never => "banners give no re-roll (their bearers still roll at -1)",
                },
            ),
            RuleOption::of(
                "shieldwall",
                &self.shieldwall,
                &d.shieldwall,
                if self.shieldwall {
                    "Shieldwall is played: a shielded model with the rule has +1 Defence while it touches two or more standing shielded friends with it, against Impact Hits (as the wall stands when it is touched) and in the fight (as it stands before Backing Away)"
                } else {
                    "Shieldwall is not played: shielded models with the rule keep their profile's Defence"
                },
            ),
            RuleOption::of(
                "grip",
                &self.grip,
                &d.grip,
                match self.grip {
                    GripPolicy::Best => {
                        "a chariot with a hand-and-a-half weapon holds it, fight by fight before the Duel Roll, the way that expects more kills in that fight (then fewer Wounds lost); two-handed: duel dice 1 lower unless a 6, To Wound rolls 1 higher"
                    }
                    GripPolicy::OneHanded => "a chariot with a hand-and-a-half weapon always holds it one-handed",
                    GripPolicy::TwoHanded => {
                        "a chariot with a hand-and-a-half weapon always holds it two-handed: duel dice 1 lower unless a 6, To Wound rolls 1 higher"
                    }
                },
            ),
            RuleOption::of(
                "cavalry_impact_hits",
                &self.cavalry_impact_hits,
                &d.cavalry_impact_hits,
                match self.cavalry_impact_hits {
                    CavalryImpactHits::OneRoll => {
                        "a dice number of Impact Hits (D3) is rolled once for a cavalry model: rider and mount each take that many"
                    }
                    CavalryImpactHits::RollEach => {
                        "a dice number of Impact Hits (D3) is rolled once for the rider and once for the mount"
                    }
                },
            ),
        ]
    }
}

impl Hero {
    /// The Hero's policies with their values, defaults and meanings, for reports.
    pub fn policies(&self, rules: &MesbgRules) -> Vec<RuleOption> {
        vec![
            RuleOption::of(
                "chariot.hero.might_policy",
                &self.might_policy,
                &MightPolicy::default(),
                match self.might_policy {
                    MightPolicy::None => "no Might in the fight",
                    MightPolicy::WinDuel => {
                        "Might on the chariot's highest duel die, the least that wins (or reaches a roll-off)"
                    }
                    MightPolicy::Wound => {
                        "Might turns failed To Wound rolls of the chariot's Strikes into Wounds that matter, cheapest first"
                    }
                    MightPolicy::WinDuelThenWound => {
                        "Might first to win the duel (the least that wins, or reaches a roll-off), then on To Wound rolls that matter, cheapest first"
                    }
                },
            ),
            RuleOption::of(
                "chariot.hero.might_on_saves",
                &self.might_on_saves,
                &true,
                match (self.might_on_saves, rules.might_on_fate) {
                    (true, true) => {
                        "Might turns a 1 on the difficult-terrain D6 into a 2 and raises the last failed Fate roll of a Wound to a 4, whenever it is enough"
                    }
                    (true, false) => {
                        "Might turns a 1 on the difficult-terrain D6 into a 2 (the rules here keep it off Fate rolls)"
                    }
                    (false, _) => "Might is never spent to save a Wound",
                },
            ),
            RuleOption::of(
                "chariot.hero.fate_policy",
                &self.fate_policy,
                &FatePolicy::default(),
                match self.fate_policy {
                    FatePolicy::ChariotThenHero => {
                        "Fate on every Wound on the chariot as it comes, then what is left on his own hit when thrown"
                    }
                    FatePolicy::LethalOnly => {
                        "Fate only on a Wound that would slay the chariot (its last) or the Hero (his last)"
                    }
                    FatePolicy::HeroOnly => "Fate never on the chariot, all of it kept for his own hit when thrown",
                },
            ),
        ]
    }
}

impl TurnRules {
    /// The turn's options with what they mean, for reports.
    pub fn options(&self) -> Vec<RuleOption> {
        let d = TurnRules::default();
        vec![
            RuleOption::of(
                "turn.fight_order",
                &self.fight_order,
                &d.fight_order,
                match self.fight_order {
                    FightOrder::HelpersFirst => {
                        "the charging player fights first the fights that hold a banner bearer whose banner reaches another fight (won, the bearer is Prone or slain and the later fight has no re-roll); the rest as the chariots charged"
                    }
                    FightOrder::AsCharged => "the fights are fought in the order their first chariots charged",
                },
            ),
            RuleOption::of(
                "turn.strike_order",
                &self.strike_order,
                &d.strike_order,
                match self.strike_order {
                    StrikeOrder::FreeFirst => {
                        "in a fight won by several chariots, those whose Strikes cost no Might strike first and a Hero spends Might on his only if the model still stands"
                    }
                    StrikeOrder::AsCharged => {
                        "in a fight won by several chariots, they strike in the order they charged, each Hero spending Might as his Strikes come"
                    }
                },
            ),
            RuleOption::of(
                "turn.corridor_width",
                &self.corridor_width,
                &d.corridor_width,
                match self.corridor_width {
                    CorridorWidth::LineBase => {
                        "a line is breached when a gap as wide as one of its own bases runs through every rank, between its standing models"
                    }
                    CorridorWidth::NarrowestChariot => {
                        "a line is breached when a gap as wide as the narrowest chariot of the turn runs through every rank, between its standing models"
                    }
                },
            ),
        ]
    }
}
