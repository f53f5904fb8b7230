// perfalign's repacked Q6_K kernels, compiled for one instruction set, against ggml's own.
//
// tests/backends/test_llama_kernels.py compiles the patched
// ggml-cpu/arch/x86/repack.cpp alone with the flags of one instruction set
// (-march=x86-64-v3: AVX2 without AVX-512; -march=x86-64-v4: AVX-512 BW and
// DQ; the same with -mavx512vnni), its two Q6_K entry points renamed
// q6k_under_test_gemv and q6k_under_test_gemm, and links it with this program
// against the installed llama.cpp, which supplies the references: ggml's plain
// Q6_K dot product (ggml_vec_dot_q6_K_q8_K, no repacking) and its generic
// repacked kernels (ggml_gemv/gemm_q6_K_8x8_q8_K_generic), the Q6_K and Q8_K
// quantizers and the repacking itself. Every case prints one line; the exit
// status is 1 when an output differs from either reference.

#include "ggml-cpu.h"
#include "repack.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#if defined(Q6K_EXPECT_AVX2_ONLY) && (!defined(__AVX2__) || defined(__AVX512F__))
#error "the AVX2 kernels must be compiled with AVX2 and without AVX-512"
#endif
#if defined(Q6K_EXPECT_AVX512) && !(defined(__AVX512BW__) && defined(__AVX512DQ__))
#error "the AVX-512 kernels need AVX-512 BW and DQ"
#endif
#if defined(Q6K_EXPECT_AVX512) && defined(Q6K_EXPECT_VNNI) != defined(__AVX512VNNI__)
#error "AVX-512 VNNI is not as this variant expects"
#endif

extern "C" {
void quantize_row_q6_K_ref(const float * x, block_q6_K * y, int64_t k);
void quantize_row_q8_K(const float * x, void * y, int64_t k);
void ggml_vec_dot_q6_K_q8_K(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc);
void q6k_under_test_gemv(int n, float * s, size_t bs, const void * vx, const void * vy, int nr, int nc);
void q6k_under_test_gemm(int n, float * s, size_t bs, const void * vx, const void * vy, int nr, int nc);
}

namespace ggml::cpu::repack {
template <typename BLOC_TYPE, int64_t INTER_SIZE, int64_t NB_COLS>
int repack(struct ggml_tensor *, const void *, size_t);
template <> int repack<block_q6_K, 8, 8>(struct ggml_tensor *, const void *, size_t);
}  // namespace ggml::cpu::repack

namespace {

enum class Kind { normal, outliers, saturating, zero_rows };

const char * kind_name(Kind kind) {
    switch (kind) {
        case Kind::normal: return "normal";
        case Kind::outliers: return "outliers";
        case Kind::saturating: return "saturating";
        case Kind::zero_rows: return "zero-rows";
    }
    return "?";
}

// Weights: nc rows of n values. Activations: nr rows of n values.
void fill(Kind kind, std::mt19937 & rng, std::vector<float> & w, std::vector<float> & a, int n) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (auto & v : w) v = normal(rng);
    for (auto & v : a) v = normal(rng);
    if (kind == Kind::outliers) {
        std::uniform_int_distribution<size_t> wi(0, w.size() - 1), ai(0, a.size() - 1);
        for (int i = 0; i < 64; i++) w[wi(rng)] *= 40.0f;
        for (int i = 0; i < 64; i++) a[ai(rng)] *= 40.0f;
    } else if (kind == Kind::saturating) {
        // All but one weight of every 16 quantize to the largest unsigned 6-bit
        // value (63) and every activation to -128: the 16-bit sums in the kernels
        // come within 2% of their limit.
        for (size_t i = 0; i < w.size(); i++) w[i] = i % 16 == 0 ? -1.0f : 0.97f;
        for (auto & v : a) v = 1.0f;
    } else if (kind == Kind::zero_rows) {
        const size_t rows = w.size() / n;
        for (size_t r = 0; r < rows; r += 3) std::fill(w.begin() + r * n, w.begin() + (r + 1) * n, 0.0f);
    }
}

struct Errors {
    double generic = 0, plain = 0, scale = 0;
};

void compare(const float * got, const float * generic, const float * plain, size_t count, Errors & e) {
    for (size_t i = 0; i < count; i++) {
        e.generic = std::fmax(e.generic, std::fabs(got[i] - generic[i]));
        e.plain = std::fmax(e.plain, std::fabs(got[i] - plain[i]));
        e.scale = std::fmax(e.scale, std::fabs(plain[i]));
        if (!std::isfinite(got[i])) e.generic = e.plain = INFINITY;
    }
}

// One case: nc weight rows (columns of the output) of n values, nr activation rows.
bool run_case(const char * kernel, Kind kind, int n, int nc, int nr, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<float> w((size_t) nc * n), a((size_t) nr * n);
    fill(kind, rng, w, a, n);
    const int nb = n / QK_K;

    std::vector<block_q6_K> wq((size_t) nc * nb);
    for (int c = 0; c < nc; c++) quantize_row_q6_K_ref(&w[(size_t) c * n], &wq[(size_t) c * nb], n);
    std::vector<block_q6_Kx8> packed((size_t) nc / 8 * nb);
    ggml_init_params params = {16 * 1024, nullptr, true};
    ggml_context * ctx = ggml_init(params);
    ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_Q6_K, n, nc);
    t->data = packed.data();
    if (ggml::cpu::repack::repack<block_q6_K, 8, 8>(t, wq.data(), wq.size() * sizeof(block_q6_K)) != 0) {
        std::printf("%s %s n=%d nc=%d nr=%d: ggml could not repack the weights\n", kernel, kind_name(kind), n, nc, nr);
        ggml_free(ctx);
        return false;
    }
    ggml_free(ctx);

    // The plain reference: one Q6_K dot product per (row, column), activations in Q8_K.
    std::vector<block_q8_K> aq((size_t) nr * nb);
    for (int r = 0; r < nr; r++) quantize_row_q8_K(&a[(size_t) r * n], &aq[(size_t) r * nb], n);
    std::vector<float> plain((size_t) nr * nc);
    for (int r = 0; r < nr; r++) {
        for (int c = 0; c < nc; c++) {
            ggml_vec_dot_q6_K_q8_K(n, &plain[(size_t) r * nc + c], 0, &wq[(size_t) c * nb], 0, &aq[(size_t) r * nb], 0, 1);
        }
    }

    std::vector<float> got((size_t) nr * nc, NAN), generic((size_t) nr * nc, NAN);
    Errors e;
    if (std::strcmp(kernel, "gemv") == 0) {
        // One activation row at a time, as ggml calls the gemv.
        for (int r = 0; r < nr; r++) {
            q6k_under_test_gemv(n, &got[(size_t) r * nc], nc, packed.data(), &aq[(size_t) r * nb], 1, nc);
            ggml_gemv_q6_K_8x8_q8_K_generic(n, &generic[(size_t) r * nc], nc, packed.data(), &aq[(size_t) r * nb], 1, nc);
        }
    } else {
        // Activations interleaved 4 rows at a time (block_q8_Kx4), as ggml lays them out for the gemm.
        std::vector<block_q8_Kx4> a4((size_t) nr / 4 * nb);
        for (int r = 0; r < nr; r += 4) ggml_quantize_mat_q8_K_4x8(&a[(size_t) r * n], &a4[(size_t) r / 4 * nb], n);
        q6k_under_test_gemm(n, got.data(), nc, packed.data(), a4.data(), nr, nc);
        ggml_gemm_q6_K_8x8_q8_K_generic(n, generic.data(), nc, packed.data(), a4.data(), nr, nc);
    }
    compare(got.data(), generic.data(), plain.data(), got.size(), e);
    // Both references sum the same integer products; only the order of the float sums differs.
    const double tolerance = 1e-5 * std::fmax(e.scale, 1e-3);
    const bool ok = e.generic <= tolerance && e.plain <= tolerance && e.scale > 0;
    std::printf("%s %s n=%d nc=%d nr=%d: largest |output| %.4g, off by %.3g from the generic kernel, %.3g from the plain dot product: %s\n",
                kernel, kind_name(kind), n, nc, nr, e.scale, e.generic, e.plain, ok ? "ok" : "WRONG");
    return ok;
}

}  // namespace

int main() {
    ggml_cpu_init();
    struct Shape { int n, nc, nr; };
    // n: 1 block, 6 blocks (rows of 1536, the default model's width), 35 blocks
    // (8960, its feed-forward width); the gemm's tiles hold 512 KB of activations,
    // 13 groups of 4 rows at n = 8960, so 60 rows take two tiles.
    const Shape shapes[] = {{256, 8, 4}, {256, 64, 8}, {1536, 136, 12}, {8960, 16, 60}, {512, 24, 36}};
    const Kind kinds[] = {Kind::normal, Kind::outliers, Kind::saturating, Kind::zero_rows};
    bool ok = true;
    unsigned seed = 1;
    for (const char * kernel : {"gemv", "gemm"}) {
        for (const Shape & s : shapes) {
            for (Kind kind : kinds) {
                ok = run_case(kernel, kind, s.n, s.nc, s.nr, seed++) && ok;
            }
        }
    }
    return ok ? 0 : 1;
}
