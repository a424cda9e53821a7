//! The command line's tests: every command as a user runs it, the reports and their
//! layouts, the docs' promises, each file a module (one test binary links the crate once).

mod board;
mod cli;
mod cli_matrix;
mod docs;
mod examples;
mod hardening;
mod interrupt;
mod json_layouts;
mod layers;
mod readers;
mod report_content;
mod reports;
mod schema;
mod turn_cli;
mod warnings;
