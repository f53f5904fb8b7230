"""The families of slow code, with their mode, split and whether an ``examples/`` function shares the idiom.

Whole families are held out for evaluation (``EVAL_FAMILIES``): none of their functions is in the train split,
so the evaluation sees idioms the model was not trained on. ``seen_in`` names the ``examples/`` functions with
the same idiom; a family with none is *idiom-disjoint* from ``examples/``, the others *idiom-seen*.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from . import _fam_algorithm as fam_algorithm
from . import _fam_bins as fam_bins
from . import _fam_formats as fam_formats
from . import _fam_layout as fam_layout
from . import _fam_parallel as fam_parallel
from . import _fam_recompute as fam_recompute
from . import _fam_text as fam_text
from ._types import Variant


@dataclass(frozen=True)
class Family:
    name: str
    mode: str  # "serial" or "openmp"
    make: Callable[[random.Random], Variant]
    seen_in: tuple[str, ...] = ()  # examples/ functions with the same idiom

    @property
    def idiom(self) -> str:
        return "idiom-seen" if self.seen_in else "idiom-disjoint"

    @property
    def split(self) -> str:
        return "eval" if self.name in EVAL_FAMILIES else "train"


EVAL_FAMILIES = ("quadratic_sort", "sparse_coo_scan", "div_mod_index", "string_build_cpp")

FAMILIES: tuple[Family, ...] = (
    Family("loop_interchange", "serial", fam_layout.loop_interchange, ("row_sums", "transpose")),
    Family("loop_order_3d", "serial", fam_layout.loop_order_3d, ("heat_3d",)),
    Family("matmul_order", "serial", fam_layout.matmul_order, ("matmul", "matvec", "trace_of_product")),
    Family("invariant_reduction", "serial", fam_recompute.invariant_reduction, ("normalize_rows", "softmax", "zscore")),
    Family("invariant_inner_loop", "serial", fam_recompute.invariant_inner_loop),
    Family("prefix_recompute", "serial", fam_recompute.prefix_recompute, ("inclusive_scan", "prefix_max")),
    Family("window_recompute", "serial", fam_recompute.window_recompute, ("moving_average",)),
    Family("pow_to_recurrence", "serial", fam_recompute.pow_to_recurrence, ("vector_norm",)),
    Family("pairwise_closed_form", "serial", fam_algorithm.pairwise_closed_form),
    Family("quadratic_to_counting", "serial", fam_algorithm.quadratic_to_counting, ("count_unique",)),
    Family("rank_by_sort", "serial", fam_algorithm.rank_by_sort),
    Family("early_exit", "serial", fam_algorithm.early_exit),
    Family("per_bin_pass", "serial", fam_bins.per_bin_pass, ("byte_histogram", "float_histogram")),
    Family("histogram_bin_search", "serial", fam_bins.histogram_bin_search, ("byte_histogram", "float_histogram")),
    Family("branchy_inner", "serial", fam_bins.branchy_inner),
    Family("omp_reduction", "openmp", fam_parallel.omp_reduction, ("vector_norm", "count_in_range")),
    Family("omp_parallel_loop", "openmp", fam_parallel.omp_parallel_loop, ("saxpy", "mandelbrot")),
    Family("stencil_bounds", "serial", fam_parallel.stencil_bounds, ("blur_1d", "jacobi_2d", "heat_3d")),
    Family("string_scan_c", "serial", fam_text.string_scan_c),
    Family("cpp_ordered_containers", "serial", fam_text.cpp_ordered_containers, ("count_unique",)),
    Family("cpp_vector_front_ops", "serial", fam_text.cpp_vector_front_ops),
    Family("quadratic_sort", "serial", fam_algorithm.quadratic_sort),
    Family("sparse_coo_scan", "serial", fam_formats.sparse_coo_scan, ("spmv_ell",)),
    Family("div_mod_index", "serial", fam_formats.div_mod_index),
    Family("string_build_cpp", "serial", fam_text.string_build_cpp),
)

BY_NAME = {f.name: f for f in FAMILIES}
