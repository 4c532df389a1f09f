//! System tests: the real `ferz` binary, run as a process, and every reader of a user's files fed
//! damaged copies of good ones.

mod architecture;
mod bot;
mod bot_chat;
mod bot_corr;
mod bot_corr_seats;
mod bot_engines;
mod bot_online;
mod bot_policy;
mod bot_records;
mod bot_refresh;
mod bot_tablebase;
mod circles;
mod damaged_input;
mod endings;
mod fake_lichess;
mod import_cli;
mod loop_cli;
mod match_cli;
mod nnue;
mod perft_cli;
mod pychess;
mod readme_examples;
mod robustness;
mod selfplay_cli;
mod spsa_cli;
mod syzygy;
mod train_cli;
mod uci;
