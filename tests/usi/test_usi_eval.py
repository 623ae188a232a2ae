"""The USI `eval` command (and YaneuraOu's `e`), and YaneuraOu's nn.bin as the engine's
evaluation: EvalDir holding nn.bin, EvalFile naming one, FV_SCALE, a bad file refused."""
from __future__ import annotations

import io

import pytest

from usi_engine.eval import nnue_file
from usi_engine.eval.handwritten import evaluate_sfen
from usi_engine.notation.sfen import STARTPOS_SFEN
from usi_engine.usi.loop import UsiEngine

AFTER_7G7F = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"


@pytest.fixture(scope="module")
def net():
    return nnue_file.random_net(seed=5)


@pytest.fixture(scope="module")
def eval_dir(tmp_path_factory, net):
    folder = tmp_path_factory.mktemp("eval")
    with open(folder / "nn.bin", "wb") as f:
        nnue_file.write_net(net, f)
    return folder


def run(*lines: str) -> list[str]:
    out = io.BytesIO()
    engine = UsiEngine(out)
    for line in ("setoption name BookFile value no_book", *lines):
        engine.handle_line(line)
        if line.startswith("isready"):
            engine._hash.wait()
    return out.getvalue().decode().splitlines()


def evals(lines: list[str]) -> list[int]:
    return [int(line.split("=")[1]) for line in lines if line.startswith("eval = ")]


def test_eval_and_e_print_the_static_value_for_the_side_to_move(eval_dir, net):
    lines = run(f"setoption name EvalDir value {eval_dir}", "isready",
                "position startpos moves 7g7f", "eval", "e")
    assert evals(lines) == [nnue_file.evaluate(net, AFTER_7G7F)] * 2


def test_eval_dir_s_nn_bin_is_read_and_named(eval_dir):
    lines = run(f"setoption name EvalDir value {eval_dir}", "isready")
    assert f"info string EvalFile: loaded {eval_dir / 'nn.bin'}" in lines


def test_eval_file_may_name_an_nn_bin(eval_dir, net):
    lines = run(f"setoption name EvalFile value {eval_dir / 'nn.bin'}", "isready",
                "position startpos", "eval")
    assert evals(lines) == [nnue_file.evaluate(net, STARTPOS_SFEN)]


def test_fv_scale_divides_the_nn_bin_s_output(eval_dir, net):
    lines = run(f"setoption name EvalDir value {eval_dir}", "setoption name FV_SCALE value 24",
                "isready", "position startpos", "eval")
    assert evals(lines) == [nnue_file.evaluate(net, STARTPOS_SFEN, fv_scale=24)]


def test_a_damaged_nn_bin_is_refused_by_name_and_the_evaluation_kept(tmp_path, eval_dir):
    broken = tmp_path / "short.bin"
    broken.write_bytes((eval_dir / "nn.bin").read_bytes()[:-1])
    lines = run(f"setoption name EvalDir value {eval_dir}", "isready", "position startpos",
                "eval", f"setoption name EvalFile value {broken}", "isready", "eval")
    refused = [line for line in lines if line.startswith("info string EvalFile:")
               and str(broken) in line]
    assert len(refused) == 1 and "fit none of the shapes" in refused[0]
    assert f"keeping {eval_dir / 'nn.bin'}" in refused[0]
    first, second = evals(lines)
    assert first == second


def test_eval_without_an_nn_bin_is_the_engine_s_own_evaluation(tmp_path):
    lines = run(f"setoption name EvalDir value {tmp_path}", "setoption name EvalType value hand",
                "isready", "position startpos", "eval")
    assert evals(lines) == [evaluate_sfen(STARTPOS_SFEN)]
