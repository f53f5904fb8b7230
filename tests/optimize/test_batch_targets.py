"""Which functions a batch run finds, in which order, and what it resumes from (no model, no compiler)."""
from __future__ import annotations

import json
from pathlib import Path

from perfalign.server.optimize import BatchState, FunctionResult, find_targets, mode_for, order_targets, plan_batch
from perfalign.server.optimize._batch_state import STATE_FILE

SOURCE = """\
int add(int a, int b) { return a + b; }

int main(void) {
    int s = 0;
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++)
            s += add(i, j);
    return s;
}

void scale(double *x, int n, double k) {
    for (int i = 0; i < n; i++)
        x[i] *= k;
}

void outer(double *a, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] += 1.0;
}
"""


def tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "lib.c").write_text(SOURCE)
    (src / "sub" / "more.cpp").write_text("namespace m { int twice(int x) { return 2 * x; } }\n")
    (src / "broken.c").write_text("int broken(int x { return x; }\nint fine(void) { return 1; }\n")
    (src / "latin1.c").write_bytes(b"/* caf\xe9 */ int f(void) { return 0; }\n")
    (src / ".hidden").mkdir()
    (src / ".hidden" / "skip.c").write_text("int hidden(void) { return 0; }\n")
    (src / "notes.txt").write_text("int not_c(void) { return 0; }\n")
    return src


def test_every_function_of_the_tree_is_found_and_bad_files_are_named(tmp_path: Path) -> None:
    found = find_targets([tree(tmp_path)], tmp_path)
    names = sorted(t.function for t in found.targets)
    assert names == ["add", "m::twice", "main", "outer", "scale"]
    assert {t.relpath for t in found.targets} == {"src/lib.c", "src/sub/more.cpp"}
    problems = {p.relpath: p.reason for p in found.problems}
    assert set(problems) == {"src/broken.c", "src/latin1.c"}
    assert "syntax error at line 1" in problems["src/broken.c"]
    assert "UTF-8" in problems["src/latin1.c"]
    assert found.files == 2


def test_loops_go_first_deepest_first_and_main_last(tmp_path: Path) -> None:
    found = find_targets([tree(tmp_path)], tmp_path)
    ordered = [t.function for t in order_targets(found.targets)]
    assert ordered == ["outer", "scale", "add", "m::twice", "main"]
    # The seam for a profile: the hot functions, hottest first, and only those.
    hot = order_targets(found.targets, hot=["src/lib.c::scale", "src/lib.c::add", "src/gone.c::x"])
    assert [t.function for t in hot] == ["scale", "add"]


def test_auto_mode_asks_for_openmp_only_where_a_loop_is(tmp_path: Path) -> None:
    by_name = {t.function: t for t in find_targets([tree(tmp_path)], tmp_path).targets}
    assert mode_for(by_name["outer"], "auto", cores=2) == "openmp"
    assert mode_for(by_name["add"], "auto", cores=2) == "serial"
    assert mode_for(by_name["outer"], "auto", cores=1) == "serial"
    assert mode_for(by_name["add"], "openmp", cores=2) == "openmp"


def test_a_final_result_is_reused_until_the_body_changes(tmp_path: Path) -> None:
    src = tree(tmp_path)
    report = tmp_path / "report"
    targets = {t.function: t for t in find_targets([src], tmp_path).targets}
    state = BatchState.load(report)
    for name, outcome in [("outer", "none_faster"), ("scale", "error"), ("add", "unsupported")]:
        t = targets[name]
        state.record(FunctionResult(relpath=t.relpath, function=name, mode="serial", body_hash=t.body_hash,
                                    outcome=outcome, summary="s", model="m", elapsed_s=1.0))
    assert json.loads((report / STATE_FILE).read_text())["version"] == 1
    assert not list(report.glob(".*.tmp"))
    # Change add's body; leave outer (and scale, whose job failed) as they were.
    lib = src / "lib.c"
    lib.write_text(lib.read_text().replace("return a + b;", "return b + a;"))
    again = BatchState.load(report)
    items = {i.target.function: i for i in plan_batch(find_targets([src], tmp_path).targets, again, "serial")}
    assert items["outer"].disposition == "reused"
    assert items["scale"].disposition == "not_reached"  # an error is retried
    assert items["add"].disposition == "not_reached"  # the body changed
    assert items["main"].disposition == "not_reached"
    assert plan_batch([targets["outer"]], again, "openmp")[0].disposition == "not_reached"  # another mode


def test_a_damaged_state_file_starts_afresh_and_says_so(tmp_path: Path) -> None:
    (tmp_path / STATE_FILE).write_text('{"version": 1, "results": {"x": {"relpath": 3')
    state = BatchState.load(tmp_path)
    assert state.results == {} and "could not be read" in state.note
