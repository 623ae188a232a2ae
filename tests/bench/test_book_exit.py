"""bench/tools/book_exit.py: where a book leaves its side, read from match records."""
from bench.tools.book_exit import a_score, book_exit


def _game(a_colour: str, result: str) -> dict:
    # black = A: two book moves (depth 0, no nodes), then a search scoring -30 for A;
    # B's search after it +60 for B (the one before it, +40, is still in the book)
    stats = [[0, 0, 0, 5, None], [1, 20, 9000, 1000, 10], [0, 0, 0, 4, None],
             [1, 20, 9000, 1000, 40], [0, 18, 8000, 1000, -30], [1, 20, 9000, 1000, 60]]
    return {"a_colour": a_colour, "result": result, "stats": stats}


def test_book_exit_counts_the_book_moves_and_reads_both_sides_scores_in_as_view():
    assert book_exit(_game("black", "1-0")) == (2, -30, -60.0)


def test_a_score_reads_the_result_from_as_colour():
    assert [a_score(_game("black", "1-0")), a_score(_game("white", "1-0")),
            a_score(_game("white", "1/2"))] == [1.0, 0.0, 0.5]
