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
