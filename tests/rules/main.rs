//! The rules' tests: hand derivations, the independent oracle, exact against Monte Carlo,
//! properties and fuzzing, each file a module (one test binary links the crate once).

mod battlesystem;
mod battlesystem_melee;
mod choices;
mod compiled_charge;
mod compiled_rout;
mod exact;
mod fuzz;
mod grip;
mod invariance;
mod library;
mod line;
#[path = "../oracle/mod.rs"]
mod oracle; // kept apart at tests/oracle/: it shares no code with src/ or the tests
mod properties;
mod readings;
mod rules_oracle;
mod shieldwall;
mod statistics;
mod support;
mod turn;
