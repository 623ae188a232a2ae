/* The integer kernels of the learned evaluation's network (usi_engine/eval/kp.pyx):
 * the accumulator's update by feature rows, the clipped ReLU of the accumulators and
 * the int8 affine layers.  Each kernel has a portable C version and an AVX2 version;
 * nnue_simd_select() picks AVX2 at run time when the CPU and the OS support it (the
 * build itself targets the baseline x86-64, so a wheel runs everywhere).  The two
 * versions give the same integers bit for bit: the int16 accumulators wrap the same
 * way, and the u8 x i8 pair sums of _mm256_maddubs_epi16 cannot saturate, as the
 * inputs are clipped to 0..127 (2 * 127 * 128 < 32768).
 *
 * Compiles with GCC, Clang and clang-cl: the AVX2 functions carry
 * __attribute__((target("avx2"))); the CPU is asked with cpuid and xgetbv.
 * Sizes: accumulator widths are multiples of 32, affine inputs multiples of 32.
 */
#ifndef USI_ENGINE_NNUE_SIMD_H
#define USI_ENGINE_NNUE_SIMD_H

#include <stdint.h>

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__) || defined(_M_IX86)
#define NNUE_X86 1
#include <immintrin.h>
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#else
#define NNUE_X86 0
#endif

#define NNUE_MAX_ROWS 4      /* feature rows added or taken away by one update */

/* ---- portable C ---------------------------------------------------------------- */

/* dst = src + the rows of adds - the rows of subs, n int16 each (wrapping as int16) */
static void nnue_update_c(int16_t* dst, const int16_t* src, const int16_t* const* adds,
                          int n_add, const int16_t* const* subs, int n_sub, int n)
{
    int i, k, v;
    for (i = 0; i < n; i++) {
        v = src[i];
        for (k = 0; k < n_add; k++)
            v += adds[k][i];
        for (k = 0; k < n_sub; k++)
            v -= subs[k][i];
        dst[i] = (int16_t)v;
    }
}

/* y = clamp(v, 0, 127) as bytes, n values */
static void nnue_clip_c(const int16_t* v, int n, uint8_t* y)
{
    int i;
    for (i = 0; i < n; i++)
        y[i] = (uint8_t)(v[i] < 0 ? 0 : (v[i] > 127 ? 127 : v[i]));
}

/* out[j] = bias[j] + sum of x[i] * w[j * n + i] over i < n, for j < m */
static void nnue_affine_c(const uint8_t* x, int n, const int8_t* w, const int32_t* bias,
                          int m, int32_t* out)
{
    int i, j;
    int32_t s;
    for (j = 0; j < m; j++) {
        s = bias[j];
        for (i = 0; i < n; i++)
            s += (int32_t)x[i] * (int32_t)w[(long)j * n + i];
        out[j] = s;
    }
}

/* ---- AVX2 -------------------------------------------------------------------------- */

#if NNUE_X86 && (defined(__GNUC__) || defined(__clang__))
#define NNUE_HAVE_AVX2 1
#define NNUE_AVX2 __attribute__((target("avx2")))

NNUE_AVX2 static void nnue_update_avx2(int16_t* dst, const int16_t* src,
                                       const int16_t* const* adds, int n_add,
                                       const int16_t* const* subs, int n_sub, int n)
{
    int i, k;
    __m256i v;
    for (i = 0; i < n; i += 16) {
        v = _mm256_loadu_si256((const __m256i*)(src + i));
        for (k = 0; k < n_add; k++)
            v = _mm256_add_epi16(v, _mm256_loadu_si256((const __m256i*)(adds[k] + i)));
        for (k = 0; k < n_sub; k++)
            v = _mm256_sub_epi16(v, _mm256_loadu_si256((const __m256i*)(subs[k] + i)));
        _mm256_storeu_si256((__m256i*)(dst + i), v);
    }
}

NNUE_AVX2 static void nnue_clip_avx2(const int16_t* v, int n, uint8_t* y)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i top = _mm256_set1_epi16(127);
    __m256i a, b;
    int i;
    for (i = 0; i < n; i += 32) {
        a = _mm256_min_epi16(_mm256_max_epi16(
                _mm256_loadu_si256((const __m256i*)(v + i)), zero), top);
        b = _mm256_min_epi16(_mm256_max_epi16(
                _mm256_loadu_si256((const __m256i*)(v + i + 16)), zero), top);
        /* packus interleaves the 128-bit lanes (a0 b0 a1 b1): put them back in order */
        _mm256_storeu_si256((__m256i*)(y + i),
                            _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8));
    }
}

NNUE_AVX2 static void nnue_affine_avx2(const uint8_t* x, int n, const int8_t* w,
                                       const int32_t* bias, int m, int32_t* out)
{
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i acc, p;
    __m128i s;
    int i, j;
    for (j = 0; j < m; j++) {
        acc = _mm256_setzero_si256();
        for (i = 0; i < n; i += 32) {
            p = _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i*)(x + i)),
                                     _mm256_loadu_si256((const __m256i*)(w + (long)j * n + i)));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, ones));
        }
        s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
        s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
        out[j] = bias[j] + _mm_cvtsi128_si32(s);
    }
}
#else
#define NNUE_HAVE_AVX2 0
#endif

/* ---- choosing at run time --------------------------------------------------------- */

/* Whether this CPU runs AVX2 and the OS saves the YMM registers. */
static int nnue_cpu_has_avx2(void)
{
#if NNUE_HAVE_AVX2
    unsigned int a, b, c, d, lo, hi;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    if (!(c & (1u << 27)) || !(c & (1u << 28)))      /* OSXSAVE, AVX */
        return 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6u) != 6u)                              /* XMM and YMM state */
        return 0;
    if (__get_cpuid_max(0, 0) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b & (1u << 5)) != 0;                       /* AVX2 */
#else
    return 0;
#endif
}

typedef void (*nnue_update_fn)(int16_t*, const int16_t*, const int16_t* const*, int,
                               const int16_t* const*, int, int);
typedef void (*nnue_clip_fn)(const int16_t*, int, uint8_t*);
typedef void (*nnue_affine_fn)(const uint8_t*, int, const int8_t*, const int32_t*, int,
                               int32_t*);

static nnue_update_fn nnue_update = nnue_update_c;
static nnue_clip_fn nnue_clip = nnue_clip_c;
static nnue_affine_fn nnue_affine = nnue_affine_c;
static int nnue_simd_avx2 = 0;

/* Use AVX2 if want_avx2 and the CPU has it, else the portable kernels; returns
 * whether AVX2 is in use. */
static int nnue_simd_select(int want_avx2)
{
    nnue_update = nnue_update_c;
    nnue_clip = nnue_clip_c;
    nnue_affine = nnue_affine_c;
    nnue_simd_avx2 = 0;
#if NNUE_HAVE_AVX2
    if (want_avx2 && nnue_cpu_has_avx2()) {
        nnue_update = nnue_update_avx2;
        nnue_clip = nnue_clip_avx2;
        nnue_affine = nnue_affine_avx2;
        nnue_simd_avx2 = 1;
    }
#else
    (void)want_avx2;
#endif
    return nnue_simd_avx2;
}

#endif /* USI_ENGINE_NNUE_SIMD_H */
