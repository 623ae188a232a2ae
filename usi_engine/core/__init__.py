"""The board and its rules: types, bitboards, `Position` (SFEN, make/unmake, repetition,
declaration), the drop-aware move generator, the transposition table, PackedSfen and
the search's control block.  Everything above (evaluation, search, mate, USI) builds on
these modules, and none of them imports anything above."""
