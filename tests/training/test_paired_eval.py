"""The paired evaluation: its statistics on replayed verdicts, each function in its own mode, and a resumed run."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from perfalign.server.verify import verifier_digest
from perfalign.training.data import read_jsonl, write_jsonl
from perfalign.training.evaluate import EvalConfig
from perfalign.training.evaluate import _paired as paired
from perfalign.training.evaluate import _run as evaluate
from perfalign.training.selfplay import CORPUS_DIR

N_FUNCTIONS = 40
SAMPLES = 8


class Refuse:
    """A sampler that must not be called: every function's verdicts are replayed from an earlier run."""

    def __init__(self, name: str) -> None:
        self.name = name

    def generate(self, *args: object, **kw: object) -> list[str]:
        raise AssertionError("a function with verdicts on file was sampled again")

    def close(self) -> None:
        pass


def functions(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for i in range(N_FUNCTIONS):
        path = folder / f"f{i}.c"
        body = f"    int s = {i};\n    for (int j = 0; j < n; j++) s += a[j];\n    return s;\n"
        path.write_text(f"int f{i}(const int *a, int n) {{\n{body}}}\n")
        files.append(path)
    return files


def replay(tmp_path: Path, chance: dict[str, float], seed: int) -> evaluate.EvalResult:
    """Write an earlier run's verdicts (each sample faster with the model's chance, else correct or wrong) and
    evaluate from them alone."""
    folder = functions(tmp_path / "src")
    config = EvalConfig(functions=[str(tmp_path / "src")], adapter="trained-adapter", samples=SAMPLES,
                        output_dir=str(tmp_path / "eval"), bootstrap_resamples=4000)
    problems, _ = evaluate.problems_for(config)
    assert len(problems) == len(folder) == N_FUNCTIONS
    rng = random.Random(seed)
    rows = []
    for problem in problems:
        for i in range(SAMPLES):
            for model in ("base", "trained"):
                draw = rng.random()
                if draw < chance[model]:
                    status, speedup = "faster", 1.5 + 3 * rng.random()
                elif draw < 0.8:
                    status, speedup = "not_significant", 1.0
                else:
                    status, speedup = "incorrect", None
                rows.append({"model": model, "sample": i, "function_key": problem.key, "mode": problem.mode,
                             "function": problem.task.info.name, "status": status, "speedup": speedup})
    out = tmp_path / "eval"
    out.mkdir()
    (out / evaluate.RUN_FILE).write_text(json.dumps(evaluate.run_header(config, ["base", "trained"])))
    write_jsonl(out / "verdicts.jsonl", rows)
    return evaluate.run(config, samplers={"base": Refuse("base"), "trained": Refuse("trained")})


def by_metric(result: evaluate.EvalResult, group: str = "all") -> dict[str, paired.Comparison]:
    return {c.metric: c for c in result.comparisons if c.group == group}


def test_a_known_difference_is_found(tmp_path: Path) -> None:
    result = replay(tmp_path, {"base": 0.1, "trained": 0.4}, seed=1)
    assert result.resumed == N_FUNCTIONS and result.functions == N_FUNCTIONS
    fast = by_metric(result)["fast@1"]
    assert fast.functions == N_FUNCTIONS
    assert 0.2 < fast.difference < 0.4 and fast.low > 0 and fast.excludes_zero
    gain = by_metric(result)["gain"]
    assert gain.low > 0  # the trained model's best-of-4 gain is higher too
    assert result.decision["trained_wins"]
    out = tmp_path / "eval"
    saved = json.loads((out / "metrics.json").read_text())
    assert saved["decision"]["trained_wins"] and saved["run"]["metrics"]["primary"] == "fast@1"
    assert "| all | fast@1 | 40 |" in (out / "table.md").read_text()
    assert (out / "paired.svg").read_text().startswith("<svg")
    per_function = read_jsonl(out / "functions.jsonl")
    assert len(per_function) == N_FUNCTIONS and {"base", "trained", "idiom"} <= set(per_function[0])


def test_a_zero_difference_is_not(tmp_path: Path) -> None:
    result = replay(tmp_path, {"base": 0.25, "trained": 0.25}, seed=2)
    fast = by_metric(result)["fast@1"]
    assert fast.low < 0 < fast.high and not fast.excludes_zero
    assert not result.decision["trained_wins"]


def test_the_bootstrap_interval_covers_the_mean_and_narrows_with_more_functions() -> None:
    rng = random.Random(0)
    few = [rng.gauss(0.1, 0.2) for _ in range(10)]
    many = [rng.gauss(0.1, 0.2) for _ in range(400)]
    lo_few, hi_few = paired.bootstrap_interval(few, seed=0)
    lo_many, hi_many = paired.bootstrap_interval(many, seed=0)
    assert lo_few < sum(few) / len(few) < hi_few
    assert hi_many - lo_many < (hi_few - lo_few) / 3


def test_gain_takes_the_best_of_four_verified_speedups_capped_and_counts_failures_as_one() -> None:
    faster = [paired.Draw("faster", 100.0)] + [paired.Draw("incorrect")] * 3
    assert paired.gain(faster, 4, 10.0) == pytest.approx(10.0)  # one of four: always in the best of four
    eight = faster + [paired.Draw("not_significant", 1.9)] * 4  # a point speedup that is not verified counts 1.0
    assert paired.gain(eight, 4, 10.0) == pytest.approx(1 + 9 * (1 - 35 / 70))  # 1 - C(7,4)/C(8,4) holds it
    assert paired.speedup_n_at_k(eight, 1) == pytest.approx((100 + 4 * 1.9) / 8)


def test_each_example_is_evaluated_in_the_mode_the_benchmarks_use(tmp_path: Path) -> None:
    problems, _ = evaluate.problems_for(EvalConfig())
    modes = {p.task.info.name: p.mode for p in problems}
    assert len(problems) == 25 and all(p.idiom == "seen" for p in problems)
    assert modes["saxpy"] == "openmp" and modes["heat_3d"] == "openmp" and modes["row_sums"] == "serial"
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "cbm.c").write_text((CORPUS_DIR / "count_below_mean.c").read_text())
    (corpus / "manifest.jsonl").write_text(
        json.dumps({"path": "cbm.c", "function": "count_below_mean", "mode": "openmp", "split": "eval"}) + "\n"
        + json.dumps({"path": "cbm.c", "function": "count_below_mean", "mode": "serial", "split": "train"}) + "\n"
    )
    problems, _ = evaluate.problems_for(EvalConfig(manifest=str(corpus / "manifest.jsonl")))
    held_out = [p for p in problems if p.idiom == "disjoint"]
    assert len(problems) == 26 and [(p.task.info.name, p.mode) for p in held_out] == [("count_below_mean", "openmp")]


FAST = """```c
size_t count_below_mean(const double *x, size_t n) {
    double sum = 0.0;
    for (size_t j = 0; j < n; j++) sum += x[j];
    double mean = sum / (double)n;
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] < mean) count++;
    return count;
}
```"""


class Replay:
    """Fixed answers; ``fail_on`` names a function whose prompt makes it fail, as a killed run would."""

    def __init__(self, name: str, answers: list[str], fail_on: str = "") -> None:
        self.name = name
        self.answers = answers
        self.fail_on = fail_on
        self.calls: list[tuple[str, int]] = []

    def generate(self, messages: list[dict[str, str]], n: int, **kw: object) -> list[str]:
        text = messages[-1]["content"]
        if self.fail_on and self.fail_on in text:
            raise RuntimeError("the model server went away")
        self.calls.append((text, int(kw["seed"])))  # type: ignore[arg-type]
        return [self.answers[i % len(self.answers)] for i in range(n)]

    def close(self) -> None:
        pass


def test_an_interrupted_evaluation_resumes_and_both_models_get_the_same_prompts_and_seeds(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a_cbm.c").write_text((CORPUS_DIR / "count_below_mean.c").read_text())
    second = sorted(p for p in CORPUS_DIR.glob("*.c") if p.name != "count_below_mean.c")[0]
    (src / "b_other.c").write_text(second.read_text())
    config = EvalConfig(functions=[str(src)], adapter="x", samples=2, ks=[1, 2], repetitions=5, min_time_ms=1.0,
                        output_dir=str(tmp_path / "eval"), bootstrap_resamples=500)
    other = evaluate.problems_for(config)[0][1].task.info.name
    base, trained = Replay("base", [FAST, "no code"]), Replay("trained", [FAST], fail_on=other)
    with pytest.raises(RuntimeError, match="went away"):
        evaluate.run(config, samplers={"base": base, "trained": trained})
    rows = read_jsonl(tmp_path / "eval" / "verdicts.jsonl")
    assert len(rows) == 4 and {r["function"] for r in rows} == {"count_below_mean"}  # the first function is kept
    # Candidates were verified interleaved, and both models got the same prompt and seed.
    assert [(r["model"], r["sample"]) for r in rows] == [("base", 0), ("trained", 0), ("base", 1), ("trained", 1)]
    assert base.calls[0] == trained.calls[0]
    base2, trained2 = Replay("base", [FAST, "no code"]), Replay("trained", [FAST])
    result = evaluate.run(config, samplers={"base": base2, "trained": trained2})
    assert result.resumed == 1 and len(base2.calls) == 1 and other in base2.calls[0][0]
    assert result.functions + len(result.skipped) == 2
    assert len(read_jsonl(tmp_path / "eval" / "verdicts.jsonl")) == 4 * result.functions
    # Another configuration in the same folder is refused rather than mixed in.
    with pytest.raises(evaluate.EvalError, match="another configuration"):
        evaluate.run(EvalConfig(**{**config.__dict__, "samples": 3}), samplers={"base": base2, "trained": trained2})
    # So are verdicts of another verifier (its checks, timing or sandbox changed since).
    run_file = tmp_path / "eval" / evaluate.RUN_FILE
    header = json.loads(run_file.read_text())
    assert header["verifier"] == verifier_digest()
    run_file.write_text(json.dumps({**header, "verifier": "0" * 16}))
    with pytest.raises(evaluate.EvalError, match="another build of the verifier"):
        evaluate.run(config, samplers={"base": base2, "trained": trained2})


def test_a_per_family_limit_takes_the_same_functions_of_every_held_out_family_whatever_the_order() -> None:
    manifest = str(CORPUS_DIR / "manifest.jsonl")
    everything = [p for p in evaluate.problems_for(EvalConfig(manifest=manifest))[0] if p.idiom == "disjoint"
                  or p.task.family]
    limited = [p for p in evaluate.problems_for(EvalConfig(manifest=manifest, per_family=4))[0] if p.task.family]
    families = {p.task.family for p in everything if p.task.family}
    assert len(families) == 4 and len(limited) == 4 * len(families)
    assert all(sum(p.task.family == f for p in limited) == 4 for f in families)
    items = [p.task for p in everything if p.task.family]
    again = evaluate.per_family(list(reversed(items)), 4)  # another order: the same functions
    assert {t.info.name for t in again} == {p.task.info.name for p in limited}
    assert evaluate.per_family(items, 0) == items


def _verdicts_on_file_at_each_sampling(tmp_path: Path, mode: str) -> tuple[list[int], evaluate.EvalResult]:
    """Evaluate two corpus functions in ``mode``, one sample a model, noting how many verdict rows were on file each
    time a model was asked for samples."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("count_below_mean.c", "clamp_sum.c"):
        (src / name).write_text((CORPUS_DIR / name).read_text())
    out = tmp_path / "eval"
    written: list[int] = []

    class Watch(Replay):
        def generate(self, messages: list[dict[str, str]], n: int, **kw: object) -> list[str]:
            written.append(len(read_jsonl(out / "verdicts.jsonl")))
            return super().generate(messages, n, **kw)

    config = EvalConfig(functions=[str(src)], adapter="x", samples=1, ks=[1], repetitions=5, min_time_ms=1.0,
                        output_dir=str(out), bootstrap_resamples=200, modes=[mode])
    result = evaluate.run(config, samplers={"base": Watch("base", [FAST]), "trained": Watch("trained", [FAST])})
    return written, result


def test_the_next_function_is_sampled_while_the_last_one_is_verified(tmp_path: Path) -> None:
    written, result = _verdicts_on_file_at_each_sampling(tmp_path, "serial")
    assert written == [0, 0, 0, 0]  # the second function was sampled before the first one's verdicts were written
    assert result.functions + len(result.skipped) == 2


def test_an_openmp_function_is_verified_with_nothing_sampled_meanwhile(tmp_path: Path) -> None:
    # Its candidates are timed on every thread; the model sampling the next function would take their cores.
    written, result = _verdicts_on_file_at_each_sampling(tmp_path, "openmp")
    assert result.functions == 2
    assert written == [0, 0, 2, 2]  # the first function's two verdicts were on file before the second was sampled


def test_a_completion_without_a_candidate_is_recorded_with_the_reason(tmp_path: Path) -> None:
    """The original returned unchanged, and prose with no code, are told apart in the verdicts."""
    src = tmp_path / "src"
    src.mkdir()
    original = (CORPUS_DIR / "count_below_mean.c").read_text()
    (src / "count_below_mean.c").write_text(original)
    config = EvalConfig(functions=[str(src)], adapter="x", samples=1, ks=[1], repetitions=5, min_time_ms=1.0,
                        output_dir=str(tmp_path / "eval"), bootstrap_resamples=200)
    copy = f"```c\n{original}\n```"
    evaluate.run(config, samplers={"base": Replay("base", ["I cannot improve this."]), "trained": Replay("trained", [copy])})
    rows = {r["model"]: r for r in read_jsonl(tmp_path / "eval" / "verdicts.jsonl")}
    assert rows["trained"]["status"] == rows["base"]["status"] == "unsupported"
    assert "identical to the original" in rows["trained"]["detail"]
    assert "identical" not in rows["base"]["detail"] and "no code could be extracted" in rows["base"]["detail"]


def test_a_later_adapter_is_evaluated_against_the_base_candidates_of_an_earlier_evaluation(tmp_path: Path) -> None:
    """The base's candidates sampled the same way are verified again, not sampled again; anything else is refused."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "count_below_mean.c").write_text((CORPUS_DIR / "count_below_mean.c").read_text())
    first = EvalConfig(functions=[str(src)], adapter="x", samples=2, ks=[1, 2], repetitions=5, min_time_ms=1.0,
                       output_dir=str(tmp_path / "stage1"), bootstrap_resamples=200)
    evaluate.run(first, samplers={"base": Replay("base", [FAST, "I cannot improve this."]),
                                  "trained": Replay("trained", [FAST])})
    earlier = {r["sample"]: r for r in read_jsonl(tmp_path / "stage1" / "verdicts.jsonl") if r["model"] == "base"}
    other = sorted(p for p in CORPUS_DIR.glob("*.c") if p.name != "count_below_mean.c")[0]
    (src / other.name).write_text(other.read_text())  # a function the earlier evaluation did not have
    second = EvalConfig(**{**first.__dict__, "output_dir": str(tmp_path / "stage2"),
                           "base_samples": str(tmp_path / "stage1")})
    base = Replay("base", [FAST])
    result = evaluate.run(second, samplers={"base": base, "trained": Replay("trained", [FAST])})
    assert len(base.calls) == 1 and "count_below_mean" not in base.calls[0][0]  # only the new function was sampled
    rows = [r for r in read_jsonl(tmp_path / "stage2" / "verdicts.jsonl")
            if r["model"] == "base" and r["function"] == "count_below_mean"]
    assert [r["code"] for r in rows] == [earlier[0]["code"], earlier[1]["code"]]
    assert rows[0]["status"] == "faster" and rows[1]["detail"] == earlier[1]["detail"]
    assert result.functions + len(result.skipped) == 2
    assert json.loads((tmp_path / "stage2" / evaluate.RUN_FILE).read_text())["base_samples"] == str(tmp_path / "stage1")
    hotter = EvalConfig(**{**second.__dict__, "output_dir": str(tmp_path / "stage3"), "temperature": 1.0})
    with pytest.raises(evaluate.EvalError, match="sampled another way \\(temperature differ"):
        evaluate.run(hotter, samplers={"base": Refuse("base"), "trained": Replay("trained", [FAST])})
    with pytest.raises(evaluate.EvalError, match="no evaluation there"):
        evaluate.run(EvalConfig(**{**second.__dict__, "base_samples": str(tmp_path / "nowhere")}),
                     samplers={"base": Refuse("base"), "trained": Replay("trained", [FAST])})


def test_earlier_base_replies_go_through_todays_extractor_and_unkept_ones_only_through_the_same(tmp_path: Path) -> None:
    """Both models' replies are extracted the same way: kept replies are extracted again; candidates extracted by
    another version of the extractor, without their replies, are refused."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "count_below_mean.c").write_text((CORPUS_DIR / "count_below_mean.c").read_text())
    first = EvalConfig(functions=[str(src)], adapter="x", samples=2, ks=[1, 2], repetitions=5, min_time_ms=1.0,
                       output_dir=str(tmp_path / "stage1"), bootstrap_resamples=200)
    evaluate.run(first, samplers={"base": Replay("base", [FAST]), "trained": Replay("trained", [FAST])})
    verdicts = tmp_path / "stage1" / "verdicts.jsonl"
    rows = read_jsonl(verdicts)
    assert all(r["raw"] == FAST for r in rows)  # every reply is kept with its verdict
    # as an older extractor would have left it: no code from the reply
    write_jsonl(verdicts, [{**r, "code": "", "detail": "no code could be extracted from the completion: old"}
                           if r["model"] == "base" and r["sample"] == 1 else r for r in rows])
    second = EvalConfig(**{**first.__dict__, "output_dir": str(tmp_path / "stage2"),
                           "base_samples": str(tmp_path / "stage1")})
    evaluate.run(second, samplers={"base": Refuse("base"), "trained": Replay("trained", [FAST])})
    again = {r["sample"]: r for r in read_jsonl(tmp_path / "stage2" / "verdicts.jsonl") if r["model"] == "base"}
    assert "count++" in again[1]["code"] and again[1]["raw"] == FAST

    write_jsonl(verdicts, [{k: v for k, v in r.items() if k != "raw"} for r in read_jsonl(verdicts)])
    run_file = tmp_path / "stage1" / evaluate.RUN_FILE
    run_file.write_text(json.dumps({**json.loads(run_file.read_text()), "extract_version": "older"}))
    third = EvalConfig(**{**second.__dict__, "output_dir": str(tmp_path / "stage3")})
    with pytest.raises(evaluate.EvalError, match="extracted by another version of the extractor"):
        evaluate.run(third, samplers={"base": Refuse("base"), "trained": Replay("trained", [FAST])})
