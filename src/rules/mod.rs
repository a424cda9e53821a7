//! Game rules, one module per rule system. Rules are pure functions over small immutable
//! values, with the dice passed in.

pub mod battlesystem;
pub mod mesbg;
pub mod mesbg_duel;
pub mod mesbg_fight;
