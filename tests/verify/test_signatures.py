"""Signatures of real code, end to end against real gcc/g++: each class is driven, and a wrong candidate is incorrect.

Every class of parameter the harness generates gets an original, an honest
rewrite (a real verdict: faster, not significant or slower, never
unsupported) and a wrong rewrite that must be ``incorrect``, never ``faster``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from perfalign.server.settings import Settings
from perfalign.server.verdict import TIMED, Status
from perfalign.server.verify._verifier import FunctionVerifier

QUICK = Settings(min_time_ms=1.0)


@dataclass(frozen=True)
class Signature:
    name: str
    language: str
    function: str
    original: str
    honest: str
    wrong: str
    words: str  # in the wrong candidate's detail

    def __str__(self) -> str:
        return self.name


SIGNATURES = [
    Signature(
        "local_vector_bool", "cpp", "count_present",
        """#include <vector>
// How many of the values 0..n-1 occur in v.
int count_present(const std::vector<int> &v, int n) {
    std::vector<bool> visited(n, false);
    int count = 0;
    for (std::size_t i = 0; i < v.size(); i++) {
        int x = v[i];
        if (x >= 0 && x < n && !visited[x]) {
            visited[x] = true;
            count++;
        }
    }
    return count;
}
""",
        """int count_present(const std::vector<int> &v, int n) {
    std::vector<char> seen(n > 0 ? n : 0, 0);
    int count = 0;
    for (int x : v)
        if (x >= 0 && x < n && !seen[x]) { seen[x] = 1; count++; }
    return count;
}
""",
        """int count_present(const std::vector<int> &v, int n) {
    std::vector<bool> visited(n + 1, false);
    int count = 0;
    for (int x : v)
        if (x >= 0 && x <= n && !visited[x]) { visited[x] = true; count++; }
    return count;
}
""",
        "the candidate returns",
    ),
    Signature(
        "local_copy_constructed", "cpp", "median",
        """#include <vector>
// The median of v (the upper one of the middle two), by sorting a copy: O(n^2).
int median(const std::vector<int> &v) {
    if (v.empty())
        return 0;
    std::vector<int> sorted(v);
    for (std::size_t i = 1; i < sorted.size(); i++)
        for (std::size_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            int t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    return sorted[sorted.size() / 2];
}
""",
        """#include <algorithm>
int median(const std::vector<int> &v) {
    if (v.empty())
        return 0;
    std::vector<int> copy(v);
    std::nth_element(copy.begin(), copy.begin() + copy.size() / 2, copy.end());
    return copy[copy.size() / 2];
}
""",
        """#include <algorithm>
int median(const std::vector<int> &v) {
    if (v.empty())
        return 0;
    std::vector<int> copy(v);
    std::nth_element(copy.begin(), copy.begin() + (copy.size() - 1) / 2, copy.end());
    return copy[(copy.size() - 1) / 2];
}
""",
        "the candidate returns",
    ),
    Signature(
        "backwards_loop", "c", "suffix_sums",
        """/* out[i] = a[i] + a[i+1] + ... + a[n-1], one sum per element: O(n^2). */
void suffix_sums(const double *a, double *out, int n) {
    for (int i = n - 1; i >= 0; i--) {
        double s = 0.0;
        for (int j = i; j < n; j++)
            s += a[j];
        out[i] = s;
    }
}
""",
        """void suffix_sums(const double *a, double *out, int n) {
    double s = 0.0;
    for (int i = n - 1; i >= 0; i--) {
        s += a[i];
        out[i] = s;
    }
}
""",
        """void suffix_sums(const double *a, double *out, int n) {
    double s = 0.0;
    for (int i = n - 1; i > 0; i--) {
        s += a[i];
        out[i] = s;
    }
}
""",
        "'out'[0]",
    ),
    Signature(
        "constant_bound_byte_histogram", "c", "byte_hist",
        """/* How often each byte value occurs in data. */
void byte_hist(const unsigned char *data, int n, int *hist) {
    for (int b = 0; b < 256; b++)
        hist[b] = 0;
    for (int i = 0; i < n; i++)
        hist[data[i]]++;
}
""",
        """#include <string.h>
void byte_hist(const unsigned char *data, int n, int *hist) {
    memset(hist, 0, 256 * sizeof *hist);
    for (int i = 0; i < n; i++)
        hist[data[i]] += 1;
}
""",
        """void byte_hist(const unsigned char *data, int n, int *hist) {
    for (int b = 0; b < 255; b++)
        hist[b] = 0;
    for (int i = 0; i < n; i++)
        hist[data[i]]++;
}
""",
        "'hist'[255]",
    ),
    Signature(
        "enum_bound_bins", "c", "bin_counts",
        """enum { BINS = 16 };

/* counts[b] = how many of bin[0..n-1] equal b. */
void bin_counts(const int *bin, int n, long *counts) {
    for (int b = 0; b < BINS; b++)
        counts[b] = 0;
    for (int i = 0; i < n; i++)
        counts[bin[i]]++;
}
""",
        """void bin_counts(const int *bin, int n, long *counts) {
    long local[BINS] = {0};
    for (int i = 0; i < n; i++)
        local[bin[i]] += 1;
    for (int b = 0; b < BINS; b++)
        counts[b] = local[b];
}
""",
        """void bin_counts(const int *bin, int n, long *counts) {
    for (int i = 0; i < n; i++)
        counts[bin[i]]++;
}
""",
        "'counts'",
    ),
    Signature(
        "define_bound_sizeof_table", "c", "weigh",
        """#define TAPS 4
static const double taps[TAPS] = {0.125, 0.375, 0.375, 0.125};

/* out[k] = the weighted sum of a[k..k+TAPS-1], for every k of the table of outputs. */
void weigh(const double *a, double *out) {
    for (unsigned k = 0; k < sizeof taps / sizeof taps[0]; k++) {
        double s = 0.0;
        for (int t = 0; t < TAPS; t++)
            s += taps[t] * a[k + t];
        out[k] = s;
    }
}
""",
        """void weigh(const double *a, double *out) {
    for (int k = 0; k < TAPS; k++)
        out[k] = 0.125 * (a[k] + a[k + 3]) + 0.375 * (a[k + 1] + a[k + 2]);
}
""",
        """void weigh(const double *a, double *out) {
    for (int k = 0; k < TAPS; k++)
        out[k] = 0.125 * (a[k] + a[k + 3]) + 0.375 * (a[k + 1] + a[k + 1]);
}
""",
        "'out'",
    ),
    Signature(
        "std_array_in_out", "cpp", "smooth8",
        """#include <array>
// A three-point smoothing of eight values (the ends copied), added to out.
void smooth8(const std::array<double, 8> &in, std::array<double, 8> &out) {
    out[0] += in[0];
    for (std::size_t i = 1; i + 1 < in.size(); i++)
        out[i] += (in[i - 1] + in[i] + in[i + 1]) / 3.0;
    out[7] += in[7];
}
""",
        """void smooth8(const std::array<double, 8> &in, std::array<double, 8> &out) {
    out[0] += in[0];
    out[7] += in[7];
    for (int i = 1; i < 7; i++)
        out[i] += (in[i - 1] + in[i] + in[i + 1]) * (1.0 / 3.0);
}
""",
        """void smooth8(const std::array<double, 8> &in, std::array<double, 8> &out) {
    out[0] += in[0];
    for (int i = 1; i < 7; i++)
        out[i] += (in[i - 1] + in[i] + in[i + 1]) / 3.0;
    out[6] += in[7];
}
""",
        "'out'",
    ),
    Signature(
        "std_array_histogram", "cpp", "histogram",
        """#include <array>
#include <vector>
constexpr int NBINS = 32;
// Counts of v's values in NBINS bins over [0, 1); the array is cleared first.
void histogram(const std::vector<double> &v, std::array<long, NBINS> &bins) {
    for (int b = 0; b < NBINS; b++) {
        long c = 0;
        for (double x : v)
            c += x >= 0.0 && x < 1.0 && int(x * NBINS) == b;
        bins[b] = c;
    }
}
""",
        """void histogram(const std::vector<double> &v, std::array<long, NBINS> &bins) {
    bins.fill(0);
    for (double x : v)
        if (x >= 0.0 && x < 1.0)
            bins[int(x * NBINS)]++;
}
""",
        """void histogram(const std::vector<double> &v, std::array<long, NBINS> &bins) {
    bins.fill(0);
    for (double x : v)
        if (x >= 0.0 && x < 1.0)
            bins[int(x * (NBINS - 1))]++;
}
""",
        "'bins'",
    ),
    Signature(
        "struct_vector_of_points", "cpp", "path_length",
        """#include <cmath>
#include <vector>
struct Point {
    double x, y;
};
// The length of the polyline through the points.
double path_length(const std::vector<Point> &pts) {
    double total = 0.0;
    for (std::size_t i = 1; i < pts.size(); i++)
        total += std::sqrt((pts[i].x - pts[i - 1].x) * (pts[i].x - pts[i - 1].x) +
                           (pts[i].y - pts[i - 1].y) * (pts[i].y - pts[i - 1].y));
    return total;
}
""",
        """double path_length(const std::vector<Point> &pts) {
    double total = 0.0;
    const Point *p = pts.data();
    for (std::size_t i = 1; i < pts.size(); i++) {
        double dx = p[i].x - p[i - 1].x, dy = p[i].y - p[i - 1].y;
        total += std::sqrt(dx * dx + dy * dy);
    }
    return total;
}
""",
        """double path_length(const std::vector<Point> &pts) {
    double total = 0.0;
    for (std::size_t i = 1; i < pts.size(); i++)
        total += std::fabs(pts[i].x - pts[i - 1].x);
    return total;
}
""",
        "the candidate returns",
    ),
    Signature(
        "struct_pointer_particles", "c", "drift",
        """typedef struct {
    double x, y, z;
    double vx, vy, vz;
} Particle;

/* Move each particle by dt times its velocity. */
void drift(Particle *ps, int n, double dt) {
    for (int i = 0; i < n; i++) {
        ps[i].x += dt * ps[i].vx;
        ps[i].y += dt * ps[i].vy;
        ps[i].z += dt * ps[i].vz;
    }
}
""",
        """void drift(Particle *ps, int n, double dt) {
    for (Particle *p = ps; p < ps + n; p++) {
        p->x += dt * p->vx;
        p->y += dt * p->vy;
        p->z += dt * p->vz;
    }
}
""",
        """void drift(Particle *ps, int n, double dt) {
    for (int i = 0; i < n; i++) {
        ps[i].x += dt * ps[i].vx;
        ps[i].y += dt * ps[i].vy;
    }
}
""",
        ".z is",
    ),
    Signature(
        "struct_mixed_fields_pointer", "c", "drift_even",
        """struct Particle {
    double x, y;
    int id;
};

/* Move each particle along y by dt and count those with an even id. */
int drift_even(struct Particle *ps, int n, double dt) {
    int even = 0;
    for (int i = 0; i < n; i++) {
        ps[i].x += dt * ps[i].y;
        if (ps[i].id % 2 == 0)
            even++;
    }
    return even;
}
""",
        """int drift_even(struct Particle *ps, int n, double dt) {
    int even = 0;
    for (struct Particle *p = ps; p < ps + n; p++) {
        p->x += dt * p->y;
        even += (p->id & 1) == 0;
    }
    return even;
}
""",
        # Swaps x and y: every field is still written, with the other's value.
        """int drift_even(struct Particle *ps, int n, double dt) {
    int even = 0;
    for (int i = 0; i < n; i++) {
        double x = ps[i].x + dt * ps[i].y;
        ps[i].x = ps[i].y;
        ps[i].y = x;
        even += ps[i].id % 2 == 0;
    }
    return even;
}
""",
        "'ps'[0].x is",
    ),
    Signature(
        "struct_mixed_fields_value_and_returned", "cpp", "heaviest",
        """struct Item {
    float w;
    long key;
    unsigned char flag;
};

// The heaviest flagged item of items[0..n), or start when none is heavier.
Item heaviest(Item start, const Item *items, int n) {
    Item best = start;
    for (int i = 0; i < n; i++)
        if (items[i].flag % 2 == 1 && items[i].w > best.w)
            best = items[i];
    return best;
}
""",
        """Item heaviest(Item start, const Item *items, int n) {
    int at = -1;
    float w = start.w;
    for (int i = 0; i < n; i++)
        if ((items[i].flag & 1) && items[i].w > w) {
            w = items[i].w;
            at = i;
        }
    return at < 0 ? start : items[at];
}
""",
        # Forgets a field: the key of the heaviest item is never copied.
        """Item heaviest(Item start, const Item *items, int n) {
    Item best = start;
    for (int i = 0; i < n; i++)
        if (items[i].flag % 2 == 1 && items[i].w > best.w) {
            best.w = items[i].w;
            best.flag = items[i].flag;
        }
    return best;
}
""",
        "the returned Item's .key is",
    ),
    Signature(
        "struct_mixed_fields_vector_and_reference", "cpp", "summarize",
        """#include <vector>
struct Sample {
    double value;
    int weight;
};
struct Summary {
    double total;
    long count;
    int heaviest;
};

// The weighted total of the samples, how many have a positive weight, and the largest weight.
void summarize(const std::vector<Sample> &samples, Summary &out) {
    out.total = 0.0;
    out.count = 0;
    out.heaviest = 0;
    for (std::size_t i = 0; i < samples.size(); i++) {
        out.total += samples[i].value * samples[i].weight;
        if (samples[i].weight > 0)
            out.count++;
        if (samples[i].weight > out.heaviest)
            out.heaviest = samples[i].weight;
    }
}
""",
        """void summarize(const std::vector<Sample> &samples, Summary &out) {
    double total = 0.0;
    long count = 0;
    int heaviest = 0;
    for (const Sample &s : samples) {
        total += s.value * s.weight;
        count += s.weight > 0;
        heaviest = s.weight > heaviest ? s.weight : heaviest;
    }
    out.total = total;
    out.count = count;
    out.heaviest = heaviest;
}
""",
        """void summarize(const std::vector<Sample> &samples, Summary &out) {
    double total = 0.0;
    long count = 0;
    int heaviest = 0;
    for (const Sample &s : samples) {
        total += s.value * s.weight;
        count += s.weight >= 0;
        heaviest = s.weight > heaviest ? s.weight : heaviest;
    }
    out.total = total;
    out.count = count;
    out.heaviest = heaviest;
}
""",
        "'out'.count is",
    ),
    Signature(
        "struct_nested_vector_in_out", "cpp", "advance",
        """#include <vector>
struct Vec3 {
    double x, y, z;
};
struct Body {
    Vec3 pos;
    Vec3 vel;
    double mass;
};

// One step of free flight: each body moves by dt times its velocity.
void advance(std::vector<Body> &bodies, double dt) {
    for (std::size_t i = 0; i < bodies.size(); i++) {
        bodies[i].pos.x += dt * bodies[i].vel.x;
        bodies[i].pos.y += dt * bodies[i].vel.y;
        bodies[i].pos.z += dt * bodies[i].vel.z;
    }
}
""",
        """void advance(std::vector<Body> &bodies, double dt) {
    for (Body &b : bodies) {
        b.pos.x += dt * b.vel.x;
        b.pos.y += dt * b.vel.y;
        b.pos.z += dt * b.vel.z;
    }
}
""",
        # A wrong nested field: y moves along the x velocity.
        """void advance(std::vector<Body> &bodies, double dt) {
    for (Body &b : bodies) {
        b.pos.x += dt * b.vel.x;
        b.pos.y += dt * b.vel.x;
        b.pos.z += dt * b.vel.z;
    }
}
""",
        ".pos.y is",
    ),
    Signature(
        "struct_nested_mixed_array_inside", "c", "evaluate",
        """#define DEGREE 3
struct Poly {
    double c[DEGREE];
    int n;
};
struct Point2 {
    float t;
    double v;
};

/* Each point's value: the first n (at most DEGREE) coefficients of its polynomial at t. */
void evaluate(const struct Poly *polys, struct Point2 *pts, int count) {
    for (int i = 0; i < count; i++) {
        double v = 0.0, power = 1.0;
        int terms = polys[i].n < 0 ? 0 : polys[i].n > DEGREE ? DEGREE : polys[i].n;
        for (int k = 0; k < terms; k++) {
            v += polys[i].c[k] * power;
            power *= pts[i].t;
        }
        pts[i].v = v;
    }
}
""",
        """void evaluate(const struct Poly *polys, struct Point2 *pts, int count) {
    for (int i = 0; i < count; i++) {
        const double *c = polys[i].c;
        double t = pts[i].t, v = 0.0, power = 1.0;
        int terms = polys[i].n;
        if (terms > DEGREE)
            terms = DEGREE;
        for (int k = 0; k < terms; k++, power *= t)
            v += c[k] * power;
        pts[i].v = v;
    }
}
""",
        """void evaluate(const struct Poly *polys, struct Point2 *pts, int count) {
    for (int i = 0; i < count; i++) {
        double v = 0.0, power = 1.0;
        int terms = polys[i].n < 0 ? 0 : polys[i].n > DEGREE ? DEGREE : polys[i].n;
        for (int k = 0; k < terms; k++) {
            v += polys[i].c[k == 2 ? 1 : k] * power;
            power *= pts[i].t;
        }
        pts[i].v = v;
    }
}
""",
        "'pts'",
    ),
    Signature(
        "struct_fields_used_as_indices", "c", "scatter",
        """struct Edge {
    int src, dst;
    float w;
};

/* y = the weighted sum over the edges of x at each edge's source, gathered at its destination. */
void scatter(const struct Edge *e, int m, const double *x, double *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = 0.0;
    for (int i = 0; i < m; i++)
        y[e[i].dst] += e[i].w * x[e[i].src];
}
""",
        """void scatter(const struct Edge *e, int m, const double *x, double *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = 0.0;
    for (const struct Edge *p = e; p < e + m; p++)
        y[p->dst] += p->w * x[p->src];
}
""",
        # Two fields swapped: gathered at the source instead of the destination.
        """void scatter(const struct Edge *e, int m, const double *x, double *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = 0.0;
    for (int i = 0; i < m; i++)
        y[e[i].src] += e[i].w * x[e[i].dst];
}
""",
        "'y'",
    ),
    Signature(
        "struct_by_reference_out", "cpp", "centroid",
        """struct Point {
    double x, y;
};
// The mean of n points, written to c.
void centroid(const Point *p, int n, Point &c) {
    c.x = 0.0;
    c.y = 0.0;
    for (int i = 0; i < n; i++) {
        c.x += p[i].x / n;
        c.y += p[i].y / n;
    }
}
""",
        """void centroid(const Point *p, int n, Point &c) {
    double sx = 0.0, sy = 0.0;
    for (int i = 0; i < n; i++) {
        sx += p[i].x / n;
        sy += p[i].y / n;
    }
    c.x = sx;
    c.y = sy;
}
""",
        """void centroid(const Point *p, int n, Point &c) {
    double sx = 0.0, sy = 0.0;
    for (int i = 0; i < n; i++) {
        sx += p[i].x / n;
        sy += p[i].x / n;
    }
    c.x = sx;
    c.y = sy;
}
""",
        "'c'.y is",
    ),
    Signature(
        "complex_vectors_returned", "cpp", "cdot",
        """#include <complex>
#include <vector>
// The Hermitian dot product: the sum of conj(a[i]) * b[i].
std::complex<double> cdot(const std::vector<std::complex<double>> &a,
                          const std::vector<std::complex<double>> &b) {
    std::complex<double> s = 0.0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); i++)
        s += std::conj(a[i]) * b[i];
    return s;
}
""",
        """std::complex<double> cdot(const std::vector<std::complex<double>> &a,
                          const std::vector<std::complex<double>> &b) {
    double re = 0.0, im = 0.0;
    std::size_t n = a.size() < b.size() ? a.size() : b.size();
    for (std::size_t i = 0; i < n; i++) {
        re += a[i].real() * b[i].real() + a[i].imag() * b[i].imag();
        im += a[i].real() * b[i].imag() - a[i].imag() * b[i].real();
    }
    return {re, im};
}
""",
        """std::complex<double> cdot(const std::vector<std::complex<double>> &a,
                          const std::vector<std::complex<double>> &b) {
    std::complex<double> s = 0.0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); i++)
        s += a[i] * b[i];
    return s;
}
""",
        "the returned std::complex<double>'s .",
    ),
    Signature(
        "pair_returned", "cpp", "min_max",
        """#include <utility>
// The smallest and the largest of a[0..n-1] (0 and 0 when n is 0).
std::pair<double, double> min_max(const double *a, int n) {
    double lo = n > 0 ? a[0] : 0.0, hi = lo;
    for (int i = 0; i < n; i++) {
        if (a[i] < lo) lo = a[i];
        if (a[i] > hi) hi = a[i];
    }
    return {lo, hi};
}
""",
        """std::pair<double, double> min_max(const double *a, int n) {
    if (n <= 0)
        return {0.0, 0.0};
    double lo = a[0], hi = a[0];
    for (int i = 1; i < n; i++) {
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    return std::make_pair(lo, hi);
}
""",
        """std::pair<double, double> min_max(const double *a, int n) {
    if (n <= 0)
        return {0.0, 0.0};
    double lo = a[0], hi = a[0];
    for (int i = 1; i < n - 1; i++) {
        lo = a[i] < lo ? a[i] : lo;
        hi = a[i] > hi ? a[i] : hi;
    }
    return std::make_pair(lo, hi);
}
""",
        "the returned std::pair<double, double>'s .",
    ),
    Signature(
        "tuple_vector", "cpp", "scale_all",
        """#include <tuple>
#include <vector>
// Scale every coordinate of every triple by s.
void scale_all(std::vector<std::tuple<float, float, float>> &v, float s) {
    for (std::size_t i = 0; i < v.size(); i++) {
        std::get<0>(v[i]) *= s;
        std::get<1>(v[i]) *= s;
        std::get<2>(v[i]) *= s;
    }
}
""",
        """void scale_all(std::vector<std::tuple<float, float, float>> &v, float s) {
    for (auto &t : v) {
        std::get<0>(t) *= s;
        std::get<1>(t) *= s;
        std::get<2>(t) *= s;
    }
}
""",
        """void scale_all(std::vector<std::tuple<float, float, float>> &v, float s) {
    for (auto &t : v) {
        std::get<0>(t) *= s;
        std::get<1>(t) *= s;
        std::get<2>(t) += s;
    }
}
""",
        "'v'",
    ),
    Signature(
        "std_string_in", "cpp", "count_words",
        """#include <string>
// The number of runs of characters other than spaces in s.
int count_words(const std::string &s) {
    int words = 0;
    for (std::size_t i = 0; i < s.size(); i++)
        if (s[i] != ' ' && (i == 0 || s[i - 1] == ' '))
            words++;
    return words;
}
""",
        """int count_words(const std::string &s) {
    int words = 0;
    bool in_word = false;
    for (char c : s) {
        words += c != ' ' && !in_word;
        in_word = c != ' ';
    }
    return words;
}
""",
        """int count_words(const std::string &s) {
    int words = 0;
    for (std::size_t i = 1; i < s.size(); i++)
        if (s[i] != ' ' && s[i - 1] == ' ')
            words++;
    return words;
}
""",
        "the candidate returns",
    ),
    Signature(
        "std_string_in_out", "cpp", "squeeze_spaces",
        """#include <string>
// Replace every run of spaces in s by one space, in place.
void squeeze_spaces(std::string &s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); i++)
        if (s[i] != ' ' || out.empty() || out.back() != ' ')
            out += s[i];
    s = out;
}
""",
        """void squeeze_spaces(std::string &s) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < s.size(); i++)
        if (s[i] != ' ' || w == 0 || s[w - 1] != ' ')
            s[w++] = s[i];
    s.resize(w);
}
""",
        """void squeeze_spaces(std::string &s) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < s.size(); i++)
        if (s[i] != ' ' || w == 0 || s[w - 1] != ' ')
            s[w++] = s[i];
}
""",
        "elements after the candidate",
    ),
    Signature(
        "char_pointer_list", "c", "total_vowels",
        """/* The number of vowels in the n strings. */
long total_vowels(const char **words, int n) {
    long count = 0;
    for (int i = 0; i < n; i++)
        for (const char *p = words[i]; *p; p++)
            for (const char *v = "aeiou"; *v; v++)
                count += *p == *v;
    return count;
}
""",
        """long total_vowels(const char **words, int n) {
    long count = 0;
    for (int i = 0; i < n; i++)
        for (const char *p = words[i]; *p; p++)
            count += *p == 'a' || *p == 'e' || *p == 'i' || *p == 'o' || *p == 'u';
    return count;
}
""",
        """long total_vowels(const char **words, int n) {
    long count = 0;
    for (int i = 0; i < n; i++)
        for (const char *p = words[i]; *p && p[1]; p++)
            count += *p == 'a' || *p == 'e' || *p == 'i' || *p == 'o' || *p == 'u';
    return count;
}
""",
        "the candidate returns",
    ),
    Signature(
        "vector_of_strings_in_out", "cpp", "capitalize",
        """#include <string>
#include <vector>
// Upper-case the first letter of every word.
void capitalize(std::vector<std::string> &words) {
    for (std::size_t i = 0; i < words.size(); i++)
        if (!words[i].empty() && words[i][0] >= 'a' && words[i][0] <= 'z')
            words[i][0] = (char)(words[i][0] - 'a' + 'A');
}
""",
        """void capitalize(std::vector<std::string> &words) {
    for (std::string &w : words)
        if (!w.empty() && w[0] >= 'a' && w[0] <= 'z')
            w[0] -= 'a' - 'A';
}
""",
        """void capitalize(std::vector<std::string> &words) {
    for (std::string &w : words) {
        if (!w.empty() && w[0] >= 'a' && w[0] <= 'z')
            w[0] -= 'a' - 'A';
        if (w.size() > 3)
            w.resize(3);
    }
}
""",
        "'words' holds strings of other sizes",
    ),
    Signature(
        "pointer_to_pointer_rows", "c", "row_max",
        """/* out[i] = the largest of row i of an n-by-m matrix given as row pointers. */
void row_max(const double **a, int n, int m, double *out) {
    for (int i = 0; i < n; i++) {
        double best = m > 0 ? a[i][0] : 0.0;
        for (int j = 0; j < m; j++)
            for (int k = 0; k < m; k++)
                if (a[i][k] > best && k <= j)
                    best = a[i][k];
        out[i] = best;
    }
}
""",
        """void row_max(const double **a, int n, int m, double *out) {
    for (int i = 0; i < n; i++) {
        double best = m > 0 ? a[i][0] : 0.0;
        for (int j = 0; j < m; j++)
            if (a[i][j] > best)
                best = a[i][j];
        out[i] = best;
    }
}
""",
        """void row_max(const double **a, int n, int m, double *out) {
    for (int i = 0; i < n; i++) {
        double best = m > 0 ? a[i][0] : 0.0;
        for (int j = 0; j + 1 < m; j++)
            if (a[i][j] > best)
                best = a[i][j];
        out[i] = best;
    }
}
""",
        "'out'",
    ),
    Signature(
        "nested_vector_in_out", "cpp", "smooth_rows",
        """#include <vector>
// Replace every inner element of each row by the mean of it and its two neighbours.
void smooth_rows(std::vector<std::vector<double>> &rows) {
    for (std::size_t i = 0; i < rows.size(); i++) {
        std::vector<double> r = rows[i];
        for (std::size_t j = 1; j + 1 < r.size(); j++)
            rows[i][j] = (r[j - 1] + r[j] + r[j + 1]) / 3.0;
    }
}
""",
        """void smooth_rows(std::vector<std::vector<double>> &rows) {
    for (std::vector<double> &row : rows) {
        if (row.size() < 3)
            continue;
        double prev = row[0];
        for (std::size_t j = 1; j + 1 < row.size(); j++) {
            double cur = row[j];
            row[j] = (prev + cur + row[j + 1]) / 3.0;
            prev = cur;
        }
    }
}
""",
        """void smooth_rows(std::vector<std::vector<double>> &rows) {
    for (std::vector<double> &row : rows) {
        if (row.size() < 3)
            continue;
        double prev = row[0];
        for (std::size_t j = 1; j + 1 < row.size(); j++) {
            double cur = row[j];
            row[j] = (prev + cur + row[j + 1]) / 3.0;
            prev = cur;
        }
        row.pop_back();
    }
}
""",
        "'rows' holds rows of other sizes",
    ),
    Signature(
        "string_written_out", "c", "to_upper",
        """/* out = s with its lower-case letters in upper case. */
void to_upper(const char *s, char *out) {
    int i = 0;
    for (; s[i]; i++)
        out[i] = s[i] >= 'a' && s[i] <= 'z' ? (char)(s[i] - 32) : s[i];
    out[i] = 0;
}
""",
        """void to_upper(const char *s, char *out) {
    while (*s) {
        char c = *s++;
        *out++ = c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
    }
    *out = 0;
}
""",
        """void to_upper(const char *s, char *out) {
    while (*s) {
        char c = *s++;
        *out++ = c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
    }
}
""",
        "'out'",
    ),
    Signature(
        "struct_by_value", "c", "farthest",
        """#include <math.h>
struct Point {
    double x, y;
};

/* The largest distance from a to one of the points. */
double farthest(struct Point a, const struct Point *pts, int n) {
    double best = 0.0;
    for (int i = 0; i < n; i++) {
        double d = sqrt((pts[i].x - a.x) * (pts[i].x - a.x) + (pts[i].y - a.y) * (pts[i].y - a.y));
        if (d > best)
            best = d;
    }
    return best;
}
""",
        """double farthest(struct Point a, const struct Point *pts, int n) {
    double best = 0.0;
    for (int i = 0; i < n; i++) {
        double dx = pts[i].x - a.x, dy = pts[i].y - a.y;
        double d = dx * dx + dy * dy;
        if (d > best)
            best = d;
    }
    return sqrt(best);
}
""",
        """double farthest(struct Point a, const struct Point *pts, int n) {
    double best = 0.0;
    for (int i = 0; i < n; i++) {
        double dx = pts[i].x - a.x, dy = pts[i].y - a.x;
        double d = dx * dx + dy * dy;
        if (d > best)
            best = d;
    }
    return sqrt(best);
}
""",
        "the candidate returns",
    ),
]


@pytest.fixture(scope="module", params=SIGNATURES, ids=str)
def prepared(request: pytest.FixtureRequest) -> Iterator[tuple[Signature, FunctionVerifier]]:
    sig: Signature = request.param
    with FunctionVerifier(sig.original, sig.language, sig.function, settings=QUICK) as verifier:
        failure = verifier.prepare()
        assert failure is None, f"{sig.name}: {failure.status.value}: {failure.detail}"
        yield sig, verifier


def test_an_honest_rewrite_gets_a_real_verdict(prepared: tuple[Signature, FunctionVerifier]) -> None:
    sig, verifier = prepared
    verdict = verifier.verify(sig.honest)
    assert verdict.status in TIMED, f"{sig.name}: {verdict.status.value}: {verdict.detail}"


def test_a_wrong_rewrite_is_incorrect(prepared: tuple[Signature, FunctionVerifier]) -> None:
    sig, verifier = prepared
    verdict = verifier.verify(sig.wrong)
    assert verdict.status is Status.INCORRECT, f"{sig.name}: {verdict.status.value}: {verdict.detail}"
    assert sig.words in verdict.detail


def test_a_standard_header_the_file_leaves_to_its_project_is_added_and_said() -> None:
    # Built in its project, this file gets <algorithm> and <cmath> from elsewhere (a precompiled header).
    original = """#include <vector>
void magnitudes(std::vector<double> &v) {
    std::transform(v.begin(), v.end(), v.begin(), [](double x) { return std::fabs(x); });
}
"""
    honest = """void magnitudes(std::vector<double> &v) {
    for (double &x : v)
        x = std::fabs(x);
}
"""
    wrong = """void magnitudes(std::vector<double> &v) {
    for (double &x : v)
        x = x < 0 ? -x : x;
    if (!v.empty())
        v.back() = 0;
}
"""
    with FunctionVerifier(original, "cpp", "magnitudes", settings=QUICK) as verifier:
        assert verifier.prepare() is None
        verdict = verifier.verify(honest)
        assert verdict.status in TIMED, verdict.detail
        assert "perfalign added #include <algorithm>, #include <cmath> for the harness" in verdict.detail
        assert verifier.verify(wrong).status is Status.INCORRECT


@pytest.mark.parametrize(
    "source, words",
    [
        ("#include <vector>\ndouble f(const std::vector<std::vector<std::vector<double>>> &m) { return m[0][0][0]; }",
         "nested containers"),
        ("#include \"shapes.h\"\ndouble f(const Shape *s, int n) { return n ? s[0].area : 0; }",
         "does not see the definition of 'Shape'"),
        ("union U { int i; float f; };\nint f(const U *u, int n) { return n ? u[0].i : 0; }",
         "U is a union; perfalign cannot tell which of its members holds a value"),
        ("struct H { int kind; union { int i; float f; } v; };\nint f(const H *h, int n) { return n ? h[0].v.i : 0; }",
         "the field 'v' of H is a union"),
        ("struct F { unsigned flags : 3; int n; };\nint f(const F *p, int n) { return n ? p[0].n : 0; }",
         "the field 'unsigned flags : 3' of F is a bit-field; perfalign cannot generate bit-fields"),
        ("struct N { double *values; int n; };\ndouble f(const N *p, int n) { return n ? p[0].n : 0; }",
         "the field 'double *values' of N is a pointer; perfalign cannot tell what it points to"),
        ("struct V { int n; double d[]; };\ndouble f(const V *p, int n) { return n ? p[0].n : 0; }",
         "the field 'd[]' of V is a flexible array member"),
        ("struct B { double x; };\nstruct D : B { double y; };\ndouble f(const D *d, int n) { return n ? d[0].y : 0; }",
         "D derives from another class"),
    ],
)
def test_what_cannot_be_generated_says_why(source: str, words: str) -> None:
    with FunctionVerifier(source, "cpp", "f", settings=QUICK) as verifier:
        failure = verifier.prepare()
    assert failure is not None and failure.status is Status.UNSUPPORTED
    assert words in failure.detail


def test_padding_never_decides_a_comparison() -> None:
    # Particle has 4 bytes of padding after id; the rewrite stores whole records with 0xAB in them.
    original = """struct Particle {
    double x, y;
    int id;
};

void swap_xy(struct Particle *ps, int n) {
    for (int i = 0; i < n; i++) {
        double t = ps[i].x;
        ps[i].x = ps[i].y;
        ps[i].y = t;
    }
}
"""
    honest = """#include <string.h>
void swap_xy(struct Particle *ps, int n) {
    for (int i = 0; i < n; i++) {
        struct Particle t;
        memset(&t, 0xAB, sizeof t);
        t.x = ps[i].y;
        t.y = ps[i].x;
        t.id = ps[i].id;
        memcpy(&ps[i], &t, sizeof t);
    }
}
"""
    forgets_id = """#include <string.h>
void swap_xy(struct Particle *ps, int n) {
    for (int i = 0; i < n; i++) {
        struct Particle t;
        memset(&t, 0, sizeof t);
        t.x = ps[i].y;
        t.y = ps[i].x;
        memcpy(&ps[i], &t, sizeof t);
    }
}
"""
    with FunctionVerifier(original, "c", "swap_xy", settings=QUICK) as verifier:
        assert verifier.prepare() is None
        verdict = verifier.verify(honest)
        assert verdict.status in TIMED, verdict.detail
        verdict = verifier.verify(forgets_id)
        assert verdict.status is Status.INCORRECT, verdict.detail
        assert ".id is 0" in verdict.detail


def test_a_struct_defined_in_a_project_header_is_driven(tmp_path: Path) -> None:
    # Sample is in a header beside the file; the Vec3 it holds in one the compile_commands.json entry finds.
    (tmp_path / "include").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "include" / "vec.h").write_text("#pragma once\nstruct Vec3 { double x, y, z; };\n")
    (tmp_path / "src" / "sample.h").write_text('#include <vec.h>\ntypedef struct { struct Vec3 at; int tag; } Sample;\n')
    source = tmp_path / "src" / "count.c"
    source.write_text("""#include "sample.h"
int count_tagged(const Sample *s, int n, double lo) {
    int c = 0;
    for (int i = 0; i < n; i++)
        if (s[i].at.x > lo && s[i].tag > 0)
            c++;
    return c;
}
""")
    (tmp_path / "compile_commands.json").write_text(json.dumps([{
        "directory": str(tmp_path), "file": str(source),
        "command": f"gcc -O2 -I{tmp_path / 'include'} -c {source}"}]))
    honest = """int count_tagged(const Sample *s, int n, double lo) {
    int c = 0;
    for (int i = 0; i < n; i++)
        c += s[i].at.x > lo && s[i].tag > 0;
    return c;
}
"""
    wrong = honest.replace("at.x", "at.y")
    with FunctionVerifier(source.read_text(), "c", "count_tagged", settings=QUICK, source_path=source) as verifier:
        failure = verifier.prepare()
        assert failure is None, failure.detail
        verdict = verifier.verify(honest)
        assert verdict.status in TIMED, verdict.detail
        assert verifier.verify(wrong).status is Status.INCORRECT
