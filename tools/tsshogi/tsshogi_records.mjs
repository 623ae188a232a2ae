// Differential-test helper for usi_engine.record (see tests/record/test_record_tsshogi.py).
//
//   node tsshogi_records.mjs generate N SEED OUTDIR
//       N random games written by tsshogi as OUTDIR/gameK.{kif,ki2,csa,jkf}, and
//       OUTDIR/expected.json: for each game its start SFEN, USI moves, times,
//       comments, branches, final special move and players.
//   node tsshogi_records.mjs read FILE...
//       each file read by tsshogi (format from the extension), as one JSON line
//       in the same shape (or {"file", "error"}).
import fs from "node:fs";
import path from "node:path";
import {
  Record, Position, InitialPositionSFEN, RecordMetadataKey, SpecialMoveType,
  specialMove, importKIF, importKI2, importCSA, importJKFString,
  exportKIF, exportKI2, exportCSA, exportJKFString,
} from "tsshogi";

// A small deterministic generator (mulberry32).
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FILES = "123456789";
const RANKS = "abcdefghi";
const SQUARES = [];
for (const f of FILES) for (const r of RANKS) SQUARES.push(f + r);

function legalMoves(position) {
  const moves = [];
  const side = position.color;
  for (const square of position.board.listSquaresByColor(side)) {
    const from = square.usi;
    for (const to of SQUARES) {
      if (to === from) continue;
      for (const promote of ["", "+"]) {
        const m = position.createMoveByUSI(from + to + promote);
        if (m && position.isValidMove(m)) moves.push(m);
      }
    }
  }
  for (const p of "PLNSGBR") {
    for (const to of SQUARES) {
      const m = position.createMoveByUSI(p + "*" + to);
      if (m && position.isValidMove(m)) moves.push(m);
    }
  }
  return moves;
}

const STARTS = [
  "STANDARD", "STANDARD", "STANDARD", "HANDICAP_LANCE", "HANDICAP_RIGHT_LANCE",
  "HANDICAP_BISHOP", "HANDICAP_ROOK", "HANDICAP_ROOK_LANCE", "HANDICAP_2PIECES",
  "HANDICAP_4PIECES", "HANDICAP_6PIECES", "HANDICAP_8PIECES", "HANDICAP_10PIECES",
  "MIDGAME", "MIDGAME",
];
const ENDINGS = [
  SpecialMoveType.RESIGN, SpecialMoveType.RESIGN, SpecialMoveType.INTERRUPT,
  SpecialMoveType.REPETITION_DRAW, SpecialMoveType.IMPASS, SpecialMoveType.TIMEOUT,
  SpecialMoveType.FOUL_WIN, SpecialMoveType.FOUL_LOSE, SpecialMoveType.ENTERING_OF_KING,
  SpecialMoveType.MAX_MOVES, null,
];
const WORDS = ["hello", "次の一手", "ここが勝負所", "good move", "悪手", "#info",
               "?!", "定跡", "a b  c"];

function randomPlay(position, plies, random) {
  for (let i = 0; i < plies; i++) {
    const moves = legalMoves(position);
    if (moves.length === 0) break;
    position.doMove(moves[Math.floor(random() * moves.length)]);
  }
}

function generateGame(random, k) {
  const kind = STARTS[Math.floor(random() * STARTS.length)];
  let position = new Position();
  if (kind === "MIDGAME") {
    position.resetBySFEN(InitialPositionSFEN.STANDARD);
    randomPlay(position, 10 + Math.floor(random() * 40), random);
    position = Position.newBySFEN(position.getSFEN(1));
  } else {
    position.resetBySFEN(InitialPositionSFEN[kind]);
  }
  const record = new Record(position);
  const md = record.metadata;
  md.setStandardMetadata(RecordMetadataKey.BLACK_NAME, `black${k}`);
  md.setStandardMetadata(RecordMetadataKey.WHITE_NAME, `後手${k}`);
  if (random() < 0.5) md.setStandardMetadata(RecordMetadataKey.TOURNAMENT, "random match");
  if (random() < 0.5) md.setStandardMetadata(RecordMetadataKey.START_DATETIME, "2024/01/02 03:04:05");
  const plies = Math.floor(random() * 80);
  let branchAt = random() < 0.3 && plies > 3 ? 1 + Math.floor(random() * (plies - 2)) : -1;
  for (let i = 0; i < plies; i++) {
    const moves = legalMoves(record.position);
    if (moves.length === 0) break;
    const move = moves[Math.floor(random() * moves.length)];
    record.append(move);
    record.current.setElapsedMs(1000 * Math.floor(random() * 90));
    if (random() < 0.1) record.current.comment = WORDS[Math.floor(random() * WORDS.length)];
  }
  const end = ENDINGS[Math.floor(random() * ENDINGS.length)];
  if (end && legalMoves(record.position).length > 0) record.append(specialMove(end));
  else if (legalMoves(record.position).length === 0) record.append(specialMove(SpecialMoveType.MATE));
  // a variation: a different move at ply branchAt (and a few after), main line kept
  if (branchAt > 0 && branchAt <= record.length) {
    record.goto(branchAt - 1);
    const mainUsi = record.moves[branchAt].move.usi;
    const alts = legalMoves(record.position).filter(m => m.usi !== mainUsi);
    if (alts.length > 0) {
      record.append(alts[Math.floor(random() * alts.length)]);
      for (let j = 0; j < 3; j++) {
        const more = legalMoves(record.position);
        if (more.length === 0) break;
        record.append(more[Math.floor(random() * more.length)]);
      }
      record.goto(branchAt);
      // make the main line active again
      record.goto(branchAt - 1);
      record.goForward();
      record.switchBranchByIndex(0);
    }
  }
  record.goto(0);
  return record;
}

function summary(record) {
  const moves = [], times = [], comments = [];
  let special = null;
  for (const node of record.moves.slice(1)) {
    if ("usi" in node.move) {
      moves.push(node.move.usi);
      times.push(Math.round(node.elapsedMs / 1000));
      comments.push(node.comment);
    } else {
      special = node.move.type === "any" ? node.move.name : node.move.type;
    }
  }
  const branches = [];
  record.forEach(node => {
    if (node.branchIndex > 0 && "usi" in node.move) {
      const line = [];
      let n = node;
      while (n && "usi" in n.move) { line.push(n.move.usi); n = n.next; }
      branches.push({ ply: node.ply, moves: line });
    }
  });
  const md = record.metadata;
  return {
    sfen: record.initialPosition.sfen,
    moves, times, comments, special, branches,
    first_comment: record.first.comment,
    black: md.getStandardMetadata(RecordMetadataKey.BLACK_NAME) ?? null,
    white: md.getStandardMetadata(RecordMetadataKey.WHITE_NAME) ?? null,
  };
}

const [command, ...args] = process.argv.slice(2);
if (command === "generate") {
  const [n, seed, outdir] = [Number(args[0]), Number(args[1]), args[2]];
  const random = rng(seed);
  fs.mkdirSync(outdir, { recursive: true });
  const expected = [];
  for (let k = 0; k < n; k++) {
    const record = generateGame(random, k);
    const base = path.join(outdir, `game${k}`);
    fs.writeFileSync(base + ".kif", exportKIF(record));
    fs.writeFileSync(base + ".ki2", exportKI2(record));
    fs.writeFileSync(base + ".csa", exportCSA(record));
    fs.writeFileSync(base + ".jkf", exportJKFString(record));
    expected.push(summary(record));
  }
  fs.writeFileSync(path.join(outdir, "expected.json"), JSON.stringify(expected, null, 1));
} else if (command === "read") {
  for (const file of args) {
    const data = fs.readFileSync(file, "utf-8");
    const ext = path.extname(file).toLowerCase();
    const record = ext === ".ki2" ? importKI2(data) : ext === ".csa" ? importCSA(data)
      : ext === ".jkf" ? importJKFString(data) : importKIF(data);
    if (record instanceof Error) console.log(JSON.stringify({ file, error: record.message }));
    else console.log(JSON.stringify({ file, ...summary(record) }));
  }
} else {
  console.error("usage: node tsshogi_records.mjs generate N SEED OUTDIR | read FILE...");
  process.exit(2);
}
