"""The analysis as pages a person would rather look at than read: one self-contained
HTML file per game (no network, no library: the figures are embedded as JSON and a
short script draws them) and an index over a folder of games.

A game's page: the players and result; black's win rate after best play, one point
per analysed position (click a point, or use the arrow keys, to see that position on
an SVG board with the played move in red and the engine's best move in blue, the best
line and the candidates beside it); the largest losses listed, each a link to its
position. The index: per player the games, the average loss of win rate and the count
of each mark; the games with the largest single losses.
"""
from __future__ import annotations

import html
import json
from typing import Any

from usi_engine.analysis.annotate import line_text, move_text
from usi_engine.analysis.core import MARKS, GameAnalysis, PlyAnalysis

__all__ = ["game_page", "index_page", "page_data", "plot_png"]

MARK_NAMES = [name for _, name in MARKS]


def _squares(move: str) -> list[str]:
    """The squares a USI move touches, as ``7g`` names (the origin first if any)."""
    if len(move) < 4:
        return []
    return [move[2:4]] if move[1] == "*" else [move[0:2], move[2:4]]


def _ply_data(p: PlyAnalysis) -> dict[str, Any]:
    black_win = p.win_best if p.turn == 0 else 1.0 - p.win_best
    return {
        "ply": p.ply, "sfen": p.sfen, "turn": p.turn,
        "played": move_text(p.sfen, p.move), "played_usi": p.move,
        "played_squares": _squares(p.move), "best_squares": _squares(p.best.move),
        "best": move_text(p.sfen, p.best.move), "best_usi": p.best.move,
        "value": p.black_value(p.best), "played_value": p.black_value(p.played),
        "mate": p.best.mate, "black_win": round(black_win * 100, 1),
        "loss": round(p.loss * 100, 1), "mark": p.mark,
        "lines": [{"text": line_text(p.sfen, line.pv), "value": p.black_value(line),
                   "depth": line.depth} for line in p.lines],
    }


def page_data(analysis: GameAnalysis) -> dict[str, Any]:
    """What a game's page shows, as the JSON it embeds."""
    plies = [_ply_data(p) for p in analysis.plies]
    swings = sorted((p for p in plies if p["loss"] > 0), key=lambda p: -p["loss"])[:8]
    return {"name": analysis.name, "source": analysis.source, "black": analysis.black,
            "white": analysis.white, "settings": analysis.settings.__dict__,
            "plies": plies, "swings": [p["ply"] for p in swings]}


_STYLE = """
body{font-family:system-ui,'Hiragino Sans','Yu Gothic',sans-serif;margin:1.2em;color:#222}
h1{font-size:1.3em;margin:.2em 0}.sub{color:#666;font-size:.9em}
#graph{width:100%;max-width:980px;height:260px;border:1px solid #ccc;background:#fafafa}
.point{cursor:pointer}.point.sel{stroke:#000;stroke-width:2}
.wrap{display:flex;flex-wrap:wrap;gap:1.5em;margin-top:1em}
#board{width:430px;height:520px}.info td{padding:.15em .6em;vertical-align:top}
.mark{font-weight:bold;color:#b00}table.list td,table.list th{padding:.2em .6em;border-bottom:1px solid #eee}
a{color:#06c;text-decoration:none;cursor:pointer}
"""

_SCRIPT = r"""
const D = JSON.parse(document.getElementById('data').textContent);
const KANJI = {P:'歩',L:'香',N:'桂',S:'銀',G:'金',B:'角',R:'飛',K:'玉',
  '+P':'と','+L':'杏','+N':'圭','+S':'全','+B':'馬','+R':'龍'};
const HAND_ORDER = ['R','B','G','S','N','L','P'];
const NS = 'http://www.w3.org/2000/svg';
function el(name, attrs, text) {
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
function parseSfen(sfen) {
  const [board, side, hand] = sfen.split(' ');
  const cells = {}; const rows = board.split('/');
  rows.forEach((row, r) => {
    let file = 9, promoted = false;
    for (const ch of row) {
      if (ch === '+') { promoted = true; continue; }
      if (/[0-9]/.test(ch)) { file -= parseInt(ch); continue; }
      const square = file + 'abcdefghi'[r];
      cells[square] = {piece: (promoted ? '+' : '') + ch.toUpperCase(), black: ch === ch.toUpperCase()};
      file -= 1; promoted = false;
    }
  });
  const hands = {b: {}, w: {}};
  if (hand !== '-') {
    let count = '';
    for (const ch of hand) {
      if (/[0-9]/.test(ch)) { count += ch; continue; }
      const who = ch === ch.toUpperCase() ? 'b' : 'w';
      hands[who][ch.toUpperCase()] = (hands[who][ch.toUpperCase()] || 0) + (count ? parseInt(count) : 1);
      count = '';
    }
  }
  return {cells, hands, side};
}
function handText(h) {
  const parts = HAND_ORDER.filter(k => h[k]).map(k => KANJI[k] + (h[k] > 1 ? h[k] : ''));
  return parts.length ? parts.join(' ') : 'なし';
}
function drawBoard(p) {
  const svg = document.getElementById('board');
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const pos = parseSfen(p.sfen); const S = 44, X = 20, Y = 60;
  svg.setAttribute('data-sfen', p.sfen);
  svg.appendChild(el('text', {x: X, y: 30, 'font-size': 16, id: 'white-hand'}, '△持駒 ' + handText(pos.hands.w)));
  svg.appendChild(el('rect', {x: X, y: Y, width: 9 * S, height: 9 * S, fill: '#f3d9a4', stroke: '#333'}));
  const mark = (squares, color, cls) => squares.forEach((sq, i) => {
    const f = parseInt(sq[0]), r = 'abcdefghi'.indexOf(sq[1]);
    svg.appendChild(el('rect', {x: X + (9 - f) * S + 2, y: Y + r * S + 2, width: S - 4, height: S - 4,
      fill: 'none', stroke: color, 'stroke-width': i === squares.length - 1 ? 4 : 2,
      'stroke-dasharray': i === squares.length - 1 ? '' : '4 3', class: cls, 'data-square': sq}));
  });
  for (let i = 1; i < 9; i++) {
    svg.appendChild(el('line', {x1: X + i * S, y1: Y, x2: X + i * S, y2: Y + 9 * S, stroke: '#333'}));
    svg.appendChild(el('line', {x1: X, y1: Y + i * S, x2: X + 9 * S, y2: Y + i * S, stroke: '#333'}));
  }
  for (const sq in pos.cells) {
    const c = pos.cells[sq]; const f = parseInt(sq[0]), r = 'abcdefghi'.indexOf(sq[1]);
    const cx = X + (9 - f) * S + S / 2, cy = Y + r * S + S / 2;
    const t = el('text', {x: cx, y: cy + 9, 'text-anchor': 'middle', 'font-size': 26,
      class: 'piece', 'data-square': sq, 'data-piece': (c.black ? '' : 'w') + c.piece,
      fill: c.piece.startsWith('+') ? '#b00' : '#000'}, KANJI[c.piece]);
    if (!c.black) t.setAttribute('transform', `rotate(180 ${cx} ${cy})`);
    svg.appendChild(t);
  }
  mark(p.best_squares, '#1565c0', 'best-move');
  mark(p.played_squares, '#d32f2f', 'played-move');
  svg.appendChild(el('text', {x: X, y: Y + 9 * S + 30, 'font-size': 16, id: 'black-hand'}, '▲持駒 ' + handText(pos.hands.b)));
}
function fmt(v) { return (v > 0 ? '+' : '') + v; }
function show(index) {
  const p = D.plies[index]; if (!p) return;
  current = index;
  document.querySelectorAll('.point').forEach(e => e.classList.toggle('sel', +e.dataset.index === index));
  drawBoard(p);
  const rows = [
    ['局面', `${p.ply}手目の前 (${p.turn === 0 ? '先手' : '後手'}番)`],
    ['指し手', `<span style="color:#d32f2f">${p.played}</span> 評価値 ${fmt(p.played_value)}` + (p.mark ? ` <span class="mark">【${p.mark}】</span>` : '')],
    ['最善手', `<span style="color:#1565c0">${p.best}</span> 評価値 ${fmt(p.value)}` + (p.mate ? ` (詰み ${Math.abs(p.mate)}手)` : '')],
    ['勝率 (先手)', p.black_win + '%' + (p.loss ? ` / 損失 ${p.loss}%` : '')],
  ];
  p.lines.forEach((l, i) => rows.push([`候補${i + 1}`, `${fmt(l.value)} (深さ ${l.depth}) ${l.text}`]));
  document.getElementById('info').innerHTML = rows.map(r => `<tr><th>${r[0]}</th><td>${r[1]}</td></tr>`).join('');
  document.getElementById('current').textContent = p.ply;
}
let current = 0;
function drawGraph() {
  const svg = document.getElementById('graph');
  const W = 980, H = 260, L = 40, R = 10, T = 10, B = 24;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  const n = D.plies.length, first = n ? D.plies[0].ply : 0, last = n ? D.plies[n - 1].ply : 1;
  const x = ply => L + (last === first ? 0.5 : (ply - first) / (last - first)) * (W - L - R);
  const y = pct => T + (1 - pct / 100) * (H - T - B);
  [0, 25, 50, 75, 100].forEach(v => {
    svg.appendChild(el('line', {x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: v === 50 ? '#999' : '#ddd'}));
    svg.appendChild(el('text', {x: 4, y: y(v) + 4, 'font-size': 11, fill: '#666'}, v + '%'));
  });
  const step = [1, 2, 5, 10, 20, 50, 100].find(s => (last - first) / s <= 12) || 200;
  for (let m = Math.ceil(first / step) * step; m <= last; m += step) {
    svg.appendChild(el('line', {x1: x(m), x2: x(m), y1: H - B, y2: H - B + 4, stroke: '#999'}));
    svg.appendChild(el('text', {x: x(m), y: H - 6, 'font-size': 11, fill: '#666',
      'text-anchor': 'middle', class: 'move-number'}, m + '手'));
  }
  svg.appendChild(el('polyline', {points: D.plies.map(p => x(p.ply) + ',' + y(p.black_win)).join(' '),
    fill: 'none', stroke: '#555', 'stroke-width': 1.5}));
  D.plies.forEach((p, i) => {
    const c = el('circle', {cx: x(p.ply), cy: y(p.black_win), r: p.mark ? 5 : 3.5,
      fill: p.mark ? '#d32f2f' : (p.turn === 0 ? '#333' : '#fff'), stroke: '#333',
      class: 'point', 'data-index': i, 'data-ply': p.ply});
    c.appendChild(el('title', {}, `${p.ply}: ${p.played} ${p.black_win}%` + (p.mark ? ' ' + p.mark : '')));
    c.addEventListener('click', () => show(i));
    svg.appendChild(c);
  });
}
function swings() {
  const ul = document.getElementById('swings');
  D.swings.forEach(ply => {
    const i = D.plies.findIndex(p => p.ply === ply); const p = D.plies[i];
    const li = document.createElement('li');
    li.innerHTML = `<a data-index="${i}">${p.ply}手目 ${p.played}</a> 損失 ${p.loss}%` +
      (p.mark ? ` <span class="mark">【${p.mark}】</span>` : '') + ` 最善 ${p.best}`;
    li.querySelector('a').addEventListener('click', () => show(i));
    ul.appendChild(li);
  });
}
document.addEventListener('keydown', e => {
  if (e.key === 'ArrowRight') show(Math.min(current + 1, D.plies.length - 1));
  if (e.key === 'ArrowLeft') show(Math.max(current - 1, 0));
});
drawGraph(); swings(); if (D.plies.length) show(0);
"""


def _json_for_script(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/")


def game_page(analysis: GameAnalysis) -> str:
    """The self-contained HTML page of one analysed game."""
    data = page_data(analysis)
    settings = analysis.settings
    effort = ("1局面 " + (f"{settings.nodes:,} ノード" if settings.nodes
                          else f"{settings.time_ms} ミリ秒") + f", MultiPV {settings.multipv}")
    title = html.escape(f"{analysis.black or '先手'} vs {analysis.white or '後手'}")
    return f"""<!DOCTYPE html>
<html lang="ja"><head><meta charset="utf-8"><title>{title} - {html.escape(analysis.name)}</title>
<style>{_STYLE}</style></head><body>
<h1>▲{html.escape(analysis.black or '先手')} △{html.escape(analysis.white or '後手')}</h1>
<div class="sub">{html.escape(analysis.source)} · {len(analysis.plies)} 局面 · {effort} ·
usi_engine analyze · <a href="index.html">一覧</a></div>
<svg id="graph" role="img" aria-label="先手の勝率 (手数ごと)"></svg>
<div class="wrap"><svg id="board" viewBox="0 0 440 520"></svg>
<div><h2 style="font-size:1.1em"><span id="current"></span>手目</h2>
<table class="info" id="info"></table>
<h2 style="font-size:1.1em">損失の大きな手</h2><ol id="swings"></ol></div></div>
<script id="data" type="application/json">{_json_for_script(data)}</script>
<script>{_SCRIPT}</script></body></html>
"""


def _player_rows(games: list[GameAnalysis]) -> list[dict[str, Any]]:
    players: dict[str, dict[str, Any]] = {}
    for game in games:
        for side, name in ((0, game.black or "先手"), (1, game.white or "後手")):
            row = players.setdefault(name, {"name": name, "games": 0, "moves": 0, "loss": 0.0,
                                            **{m: 0 for m in MARK_NAMES}})
            row["games"] += 1
            for p in game.plies:
                if p.turn == side:
                    row["moves"] += 1
                    row["loss"] += p.loss
                    if p.mark:
                        row[p.mark] += 1
    return sorted(players.values(), key=lambda r: (-r["games"], r["name"]))


def index_page(games: list[GameAnalysis]) -> str:
    """The index over a folder of analysed games."""
    def esc(text: Any) -> str:
        return html.escape(str(text))
    player_rows = "".join(
        f"<tr><td>{esc(r['name'])}</td><td>{r['games']}</td><td>{r['moves']}</td>"
        f"<td>{(r['loss'] / r['moves'] * 100 if r['moves'] else 0):.1f}%</td>"
        + "".join(f"<td>{r[m]}</td>" for m in MARK_NAMES) + "</tr>"
        for r in _player_rows(games))
    game_rows = "".join(
        f"<tr><td><a href=\"{esc(g.name)}.html\">{esc(g.name)}</a></td><td>{esc(g.black)}</td>"
        f"<td>{esc(g.white)}</td><td>{len(g.plies)}</td>"
        f"<td>{max((p.loss for p in g.plies), default=0) * 100:.1f}%</td></tr>"
        for g in games)
    swings = sorted(((p.loss, g, p) for g in games for p in g.plies if p.loss > 0),
                    key=lambda item: -item[0])[:20]
    swing_rows = "".join(
        f"<tr><td><a href=\"{esc(g.name)}.html\">{esc(g.name)}</a></td><td>{p.ply}</td>"
        f"<td>{esc(move_text(p.sfen, p.move))}</td><td>{esc(move_text(p.sfen, p.best.move))}</td>"
        f"<td>{loss * 100:.1f}%</td><td class=\"mark\">{esc(p.mark)}</td></tr>"
        for loss, g, p in swings)
    return f"""<!DOCTYPE html>
<html lang="ja"><head><meta charset="utf-8"><title>{len(games)}局の解析</title>
<style>{_STYLE}</style></head><body>
<h1>{len(games)}局の解析</h1>
<h2 style="font-size:1.1em">対局者</h2>
<table class="list" id="players"><tr><th>対局者</th><th>局数</th><th>指し手数</th>
<th>平均損失</th>{''.join(f'<th>{m}</th>' for m in MARK_NAMES)}</tr>{player_rows}</table>
<h2 style="font-size:1.1em">損失の大きな手</h2>
<table class="list" id="swings"><tr><th>対局</th><th>手数</th><th>指し手</th><th>最善手</th>
<th>損失</th><th>印</th></tr>{swing_rows}</table>
<h2 style="font-size:1.1em">対局</h2>
<table class="list" id="games"><tr><th>対局</th><th>先手</th><th>後手</th><th>局面数</th>
<th>最大損失</th></tr>{game_rows}</table>
</body></html>
"""


def plot_png(analysis: GameAnalysis, path: str) -> bool:
    """Black's win rate by move as a PNG (matplotlib, the ``plot`` extra); False when
    matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    xs = [p.ply for p in analysis.plies]
    ys = [(p.win_best if p.turn == 0 else 1 - p.win_best) * 100 for p in analysis.plies]
    figure, axes = plt.subplots(figsize=(9, 3))
    axes.plot(xs, ys, color="#444", linewidth=1.2)
    marked_x = [p.ply for p in analysis.plies if p.mark]
    marked_y = [y for p, y in zip(analysis.plies, ys) if p.mark]
    if marked_x:
        axes.scatter(marked_x, marked_y, color="#d32f2f", s=16, zorder=3)
    axes.axhline(50, color="#999", linewidth=0.8)
    axes.set_ylim(0, 100)
    axes.set_xlabel("move")
    axes.set_ylabel("black's win rate (%)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return True
