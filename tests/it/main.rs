//! System tests: the real `ferz` binary, run as a process.

mod bot;
mod fake_lichess;
mod match_cli;
mod perft_cli;
mod pychess;
mod selfplay_cli;
mod train_cli;
mod uci;
