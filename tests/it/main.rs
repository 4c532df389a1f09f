mod perft_cli;
