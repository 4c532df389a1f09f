#!/usr/bin/env python3
"""Full games of ferz against itself through python-chess's engine module, one per variant.

Checks that ferz works as a UCI engine in a real client: python-chess starts the processes,
negotiates options (it sets UCI_Chess960 and UCI_Variant itself), sends positions with clocks
and parses every bestmove against its own legal-move list.

python-chess has no Shatranj rules, so the Shatranj game uses a small board class that keeps
python-chess's interface but asks pyffish (Fairy-Stockfish's rules) for FENs, legal moves and
the end of the game; python-chess then sends `setoption name UCI_Variant value shatranj`
because the board class says so.

  scripts/python-chess-games.py target/release/ferz
"""
import sys

import chess
import chess.engine
import pyffish as sf


class ShatranjBoard(chess.Board):
    """Just enough of chess.Board for python-chess's engine module, with Shatranj rules."""

    uci_variant = "shatranj"
    starting_fen = "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1"

    def __init__(self, fen=starting_fen):
        self.start = fen
        self.moves = []
        super().__init__(None)

    def fen(self, **_):
        return sf.get_fen("shatranj", self.start, self.moves)

    def root(self):
        return ShatranjBoard(self.start)

    @property
    def move_stack(self):
        return [chess.Move.from_uci(m) for m in self.moves]

    @move_stack.setter
    def move_stack(self, _):
        pass  # chess.Board.__init__ assigns it; the pyffish move list is the real history

    @property
    def turn(self):
        return (len(self.moves) % 2 == 0) == (self.start.split()[1] == "w")

    @turn.setter
    def turn(self, _):
        pass

    def copy(self, *, stack=True):
        board = ShatranjBoard(self.start)
        board.moves = list(self.moves)
        return board

    def parse_uci(self, uci):
        if uci not in sf.legal_moves("shatranj", self.start, self.moves):
            raise chess.IllegalMoveError(f"illegal Shatranj move {uci} in {self.fen()}")
        return chess.Move.from_uci(uci)

    def push_uci(self, uci):
        move = self.parse_uci(uci)
        self.moves.append(uci)
        return move

    def push(self, move):
        self.push_uci(move.uci())

    def pop(self):
        return chess.Move.from_uci(self.moves.pop())

    def result_and_reason(self):
        """(result, reason) when the game is over, else None."""
        end, value = sf.is_immediate_game_end("shatranj", self.start, self.moves)
        if not end and not sf.legal_moves("shatranj", self.start, self.moves):
            end, value = True, sf.game_result("shatranj", self.start, self.moves)
        reason = "rules"
        if not end:
            end, value = sf.is_optional_game_end("shatranj", self.start, self.moves)
            reason = "draw claim"
        if not end:
            return None
        if value == 0:
            return "1/2-1/2", reason
        return ("1-0" if (value > 0) == self.turn else "0-1"), reason


def play(ferz, board, max_plies=1000):
    """Plays ferz against itself at 5+0.05 from `board`; returns (plies, result, reason)."""
    white = chess.engine.SimpleEngine.popen_uci(ferz)
    black = chess.engine.SimpleEngine.popen_uci(ferz)
    limit = chess.engine.Limit(white_clock=5, black_clock=5, white_inc=0.05, black_inc=0.05)
    plies, outcome = 0, None
    try:
        while plies < max_plies:
            if isinstance(board, ShatranjBoard):
                outcome = board.result_and_reason()
            elif board.is_game_over(claim_draw=True):
                o = board.outcome(claim_draw=True)
                outcome = (o.result(), o.termination.name.lower())
            if outcome:
                break
            engine = white if board.turn else black
            board.push(engine.play(board, limit).move)
            plies += 1
    finally:
        white.quit()
        black.quit()
    return plies, *(outcome or ("*", "ply cap"))


def main():
    ferz = sys.argv[1] if len(sys.argv) > 1 else "target/release/ferz"
    chess960 = chess.Board.from_chess960_pos(123)
    chess960.chess960 = True
    games = [
        ("chess", chess.Board()),
        ("chess960 #123", chess960),
        ("shatranj (king d1)", ShatranjBoard()),
        ("shatranj (king e1)", ShatranjBoard("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1")),
    ]
    failed = False
    for name, board in games:
        plies, result, reason = play(ferz, board)
        print(f"{name}: {plies} plies, {result} ({reason})")
        failed |= result == "*"
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
