//! System tests: the real `ferz` binary, run as a process.

mod bot;
mod fake_lichess;
mod match_cli;
mod nnue;
mod perft_cli;
mod pychess;
mod selfplay_cli;
mod uci;
