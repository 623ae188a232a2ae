# Included by core/position.pyx (one extension): the text forms of squares, moves and
# positions (USI move notation, SFEN and `position` commands), parsed with a clear
# error for every malformed input and formatted back.
# ---- text forms ------------------------------------------------------------------------
_SFEN_LETTERS = "PLNSBRGK"          # piece types 1..8, black's spelling
_HAND_ORDER = (ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN)
_SET_COUNTS = {PAWN: 18, LANCE: 4, KNIGHT: 4, SILVER: 4, BISHOP: 2, ROOK: 2, GOLD: 4, KING: 2}
_TYPE_OF_LETTER = {ch: i + 1 for i, ch in enumerate(_SFEN_LETTERS)}
_FILES = "123456789"
_RANKS = "abcdefghi"
_DIGITS = "0123456789"       # str.isdigit() would also take other scripts' digits


cdef bint _is_ascii_number(str text):
    """One or more ASCII digits (int() and str.isdigit() also accept e.g. Arabic-Indic)."""
    if not text:
        return False
    for ch in text:
        if ch not in _DIGITS:
            return False
    return True

cdef list _MOVE_OBJECTS = [i for i in range(1 << 15)]   # cached ints for fast move lists


def square_name(int sq) -> str:
    """'7g' for the square index of file 7, rank g."""
    if not 0 <= sq < 81:
        raise ValueError(f"square index out of range: {sq}")
    return _FILES[square_file(sq)] + _RANKS[square_rank(sq)]


def move_to_usi(int m) -> str:
    """Format a move value as USI text: '7g7f', '8h2b+', 'P*5e'.

    >>> move_to_usi(Position().parse_usi("7g7f"))
    '7g7f'
    """
    cdef int to = move_to(m)
    cdef int frm = move_from(m)
    if m <= 0 or m > 0x7FFF or to >= 81 or (frm >= 81 and not 81 <= frm <= 87):
        raise ValueError(f"not a move value: {m}")
    if frm > MOVE_DROP_BASE:
        return f"{_SFEN_LETTERS[frm - MOVE_DROP_BASE - 1]}*{square_name(to)}"
    return square_name(frm) + square_name(to) + ("+" if move_is_promotion(m) else "")


cdef int _parse_square(str text) except -2:
    if len(text) != 2 or text[0] not in _FILES or text[1] not in _RANKS:
        return -1
    return make_square(_FILES.index(text[0]), _RANKS.index(text[1]))


def usi_to_move(str text) -> int:
    """Parse USI move syntax into a move value (no legality check: see Position.parse_usi).
    Raises ValueError on malformed text."""
    cdef int frm, to
    if not isinstance(text, str):
        raise ValueError(f"move must be a string, not {type(text).__name__}")
    if len(text) == 4 and text[1] == "*":
        if text[0] not in "PLNSBRG":
            raise ValueError(f"bad move {text!r}: cannot drop {text[0]!r}")
        to = _parse_square(text[2:])
        if to < 0:
            raise ValueError(f"bad move {text!r}: bad square {text[2:]!r}")
        return make_drop(_TYPE_OF_LETTER[text[0:1]], to)
    if len(text) in (4, 5):
        frm = _parse_square(text[0:2])
        to = _parse_square(text[2:4])
        if frm >= 0 and to >= 0 and (len(text) == 4 or text[4] == "+") and frm != to:
            return make_move(frm, to, len(text) == 5)
    raise ValueError(f"bad move {text!r}: expected like 7g7f, 8h2b+ or P*5e")


cdef str _piece_text(int pc):
    cdef str s = _SFEN_LETTERS[unpromoted(piece_type(pc)) - 1]
    if piece_color(pc) == WHITE:
        s = s.lower()
    if piece_type(pc) > KING:
        s = "+" + s
    return s


cdef str _format_sfen(const Pos* p):
    cdef list ranks = []
    cdef int r, f, pc, empty, c, pt, count
    cdef list parts
    for r in range(9):
        parts = []
        empty = 0
        for f in range(8, -1, -1):
            pc = p.board[make_square(f, r)]
            if pc == EMPTY:
                empty += 1
                continue
            if empty:
                parts.append(str(empty))
                empty = 0
            parts.append(_piece_text(pc))
        if empty:
            parts.append(str(empty))
        ranks.append("".join(parts))
    hand = []
    for c in range(2):
        for pt in _HAND_ORDER:
            count = hand_count(p.hand[c], pt)
            if count:
                letter = _SFEN_LETTERS[pt - 1]
                hand.append((str(count) if count > 1 else "") +
                            (letter if c == BLACK else letter.lower()))
    return "{} {} {} {}".format("/".join(ranks), "b" if p.side == BLACK else "w",
                                "".join(hand) or "-", p.game_ply)


cdef _parse_sfen_into(Pos* p, str text):
    """Set p from SFEN text; ValueError naming the field on any error.  On error p holds
    garbage: callers parse into a scratch Pos."""
    fields = text.split()
    if len(fields) not in (3, 4):
        raise ValueError(f"sfen: expected 3 or 4 fields (board side hand [ply]), got {len(fields)}")
    board_text, side_text, hand_text = fields[0], fields[1], fields[2]
    memset(p.board, 0, sizeof(p.board))
    for c in range(2):
        p.by_color[c] = 0
        p.hand[c] = 0
        p.king_sq[c] = NO_SQUARE
    for pt in range(16):
        p.by_type[pt] = 0
    p.occupied = 0
    counts = {pt: 0 for pt in _SET_COUNTS}

    rows = board_text.split("/")
    if len(rows) != 9:
        raise ValueError(f"sfen board: expected 9 ranks, got {len(rows)}")
    for r, row in enumerate(rows):
        f = 8                      # files run 9..1 from left to right
        promoted = False
        for ch in row:
            if ch == "+":
                if promoted:
                    raise ValueError(f"sfen board: rank {_RANKS[r]} has '++'")
                promoted = True
                continue
            if ch in _DIGITS:
                if promoted:
                    raise ValueError(f"sfen board: rank {_RANKS[r]} has '+' before a digit")
                if ch == "0":
                    raise ValueError(f"sfen board: rank {_RANKS[r]} has an empty run of 0")
                f -= int(ch)
                if f < -1:
                    raise ValueError(f"sfen board: rank {_RANKS[r]} has more than 9 files")
                continue
            pt = _TYPE_OF_LETTER.get(ch.upper())
            if pt is None:
                raise ValueError(f"sfen board: unknown piece letter {ch!r} on rank {_RANKS[r]}")
            if f < 0:
                raise ValueError(f"sfen board: rank {_RANKS[r]} has more than 9 files")
            color = BLACK if ch.isupper() else WHITE
            sq = make_square(f, r)
            if promoted:
                if not can_promote_type(pt):
                    raise ValueError(f"sfen board: {ch!r} cannot be promoted (square {square_name(sq)})")
                pt += PROMOTED
                promoted = False
            pc = make_piece(color, pt)
            if bb_test(usi_tables.dead[color][pt], sq):
                raise ValueError(f"sfen board: {_piece_text(pc)!r} on {square_name(sq)} could never move")
            if pt == KING:
                if p.king_sq[color] != NO_SQUARE:
                    raise ValueError("sfen board: two {} kings".format("black" if color == BLACK else "white"))
                p.king_sq[color] = sq
            counts[unpromoted(pt)] += 1
            _put(p, sq, pc)
            f -= 1
        if promoted:
            raise ValueError(f"sfen board: rank {_RANKS[r]} ends with '+'")
        if f != -1:
            raise ValueError(f"sfen board: rank {_RANKS[r]} has {8 - f} files, expected 9")
    for c in range(2):
        for f in range(9):
            if bb_popcount(pieces(p, c, PAWN) & usi_tables.file_mask[f]) > 1:
                raise ValueError("sfen board: two unpromoted {} pawns on file {} (nifu)".format(
                    "black" if c == BLACK else "white", f + 1))

    if side_text not in ("b", "w"):
        raise ValueError(f"sfen side: expected 'b' or 'w', got {side_text!r}")
    p.side = BLACK if side_text == "b" else WHITE

    if hand_text != "-":
        i = 0
        seen = set()
        while i < len(hand_text):
            j = i
            while j < len(hand_text) and hand_text[j] in _DIGITS:
                j += 1
            count = int(hand_text[i:j]) if j > i else 1
            if j >= len(hand_text):
                raise ValueError(f"sfen hand: {hand_text!r} ends with a number")
            ch = hand_text[j]
            pt = _TYPE_OF_LETTER.get(ch.upper())
            if pt is None or pt == KING:
                raise ValueError(f"sfen hand: {ch!r} cannot be held in hand")
            if count < 1 or (j > i and hand_text[i] == "0"):
                raise ValueError(f"sfen hand: bad count {hand_text[i:j]!r} for {ch!r}")
            if ch in seen:
                raise ValueError(f"sfen hand: {ch!r} listed twice")
            seen.add(ch)
            if count > _SET_COUNTS[pt]:
                raise ValueError(f"sfen hand: {count} {ch!r} is more than the set holds")
            color = BLACK if ch.isupper() else WHITE
            p.hand[color] += hand_unit(pt) * count
            counts[pt] += count
            i = j + 1
    for pt, total in counts.items():
        if total > _SET_COUNTS[pt]:
            raise ValueError("sfen: {} pieces of type {} ({}), the set holds {}".format(
                total, _SFEN_LETTERS[pt - 1], "board and hands", _SET_COUNTS[pt]))

    if len(fields) == 4:
        ply_text = fields[3]
        if not _is_ascii_number(ply_text) or int(ply_text) < 1 or len(ply_text) > 9:
            raise ValueError(f"sfen ply: expected a positive move number, got {ply_text!r}")
        p.game_ply = int(ply_text)
    else:
        p.game_ply = 1

    _compute_root_state(p)
    them = p.side ^ 1
    if p.king_sq[BLACK] < 0 and p.king_sq[WHITE] < 0:
        # A tsume leaves out the attacker's king, whichever side is to move (the
        # attacker at the start, the defender after each check); without the
        # defender's king too there is nothing to play for.
        raise ValueError("sfen board: no king (only a tsume's attacker may lack its king)")
    if p.king_sq[them] >= 0 and attackers_to(p, p.side, p.king_sq[them], p.occupied):
        raise ValueError("sfen: the side not to move is in check")


cdef _parse_position_into(Pos* p, str text):
    """Set p from ``[startpos | sfen <SFEN> | <SFEN>] [moves m1 m2 ...]``; ValueError
    naming the field or the move on any error (p then holds garbage, as above)."""
    cdef int m
    line = read_position_text(text)           # the one reader of position text
    if line is None:
        raise ValueError(f"sfen: no position in {text[:80]!r}")
    moves = line.moves
    _parse_sfen_into(p, STARTPOS_SFEN if line.sfen is None else line.sfen)
    for number, move_text in enumerate(moves, start=1):
        try:
            m = usi_to_move(move_text)
        except ValueError as exc:
            raise ValueError(f"moves: move {number}: {exc}") from None
        if not is_legal(p, m):
            raise ValueError(f"moves: move {number} {move_text!r} is illegal in {_format_sfen(p)}")
        if not pos_reserve(p, 1):
            raise MemoryError()
        pos_do_move(p, m)


cdef str _hand_text(uint32_t h, int color):
    parts = []
    for pt in _HAND_ORDER:
        count = hand_count(h, pt)
        if count:
            letter = _SFEN_LETTERS[pt - 1]
            parts.append((letter if color == BLACK else letter.lower()) +
                         (str(count) if count > 1 else ""))
    return " ".join(parts) or "-"
