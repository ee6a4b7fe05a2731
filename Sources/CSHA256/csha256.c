// SHA-256's compression function (FIPS 180-4) with the x86 SHA extensions: `sha256rnds2` does two rounds,
// `sha256msg1` and `sha256msg2` extend the message schedule four words at a time. The state travels as two
// vectors, ABEF and CDGH, the order `sha256rnds2` takes. The portable Swift implementation
// (Sources/ThreadDataset/SHA256.swift) computes the same function; this one is used where the processor has the
// instructions, which the Swift compiler cannot emit for a function of its own.
#include "csha256.h"

#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>

static int processor_has_extensions(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    const int ssse3 = (ecx >> 9) & 1, sse41 = (ecx >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    const int sha = (ebx >> 29) & 1;
    return ssse3 && sse41 && sha;
}

int matterflow_sha256_extensions_available(void) { return processor_has_extensions(); }

__attribute__((target("sha,ssse3,sse4.1")))
static void compress(uint32_t state[8], const uint8_t *data, size_t blocks, const uint32_t round_constants[64]) {
    // Each 32-bit word of a block is big-endian.
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    // h0..h3 = ABCD and h4..h7 = EFGH, rearranged as ABEF and CDGH.
    __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

    for (; blocks > 0; blocks--, data += 64) {
        const __m128i abef_before = abef, cdgh_before = cdgh;
        // schedule[g % 4] holds the words 4g...4g+3 of the message schedule when group g (rounds 4g...4g+3) runs.
        __m128i schedule[4];
#pragma clang loop unroll(full)
        for (int group = 0; group < 16; group++) {
            __m128i *current = &schedule[group % 4];
            if (group < 4) *current = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * group)), byte_swap);
            __m128i words = _mm_add_epi32(*current, _mm_loadu_si128((const __m128i *)&round_constants[4 * group]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, words);
            if (group >= 3 && group <= 14) {
                // Words 4(g+1)...: their w[t-16] + sigma0 part was begun by sha256msg1; add w[t-7], then sigma1.
                __m128i *next = &schedule[(group + 1) % 4];
                *next = _mm_add_epi32(*next, _mm_alignr_epi8(*current, schedule[(group + 3) % 4], 4));
                *next = _mm_sha256msg2_epu32(*next, *current);
            }
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(words, 0x0E));
            if (group >= 1 && group <= 12) {
                // The words three groups ahead begin from those of the previous group.
                __m128i *previous = &schedule[(group + 3) % 4];
                *previous = _mm_sha256msg1_epu32(*previous, *current);
            }
        }
        abef = _mm_add_epi32(abef, abef_before);
        cdgh = _mm_add_epi32(cdgh, cdgh_before);
    }

    // Back from ABEF and CDGH to h0..h3 and h4..h7.
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

void matterflow_sha256_compress(uint32_t state[8], const uint8_t *data, size_t blocks, const uint32_t round_constants[64]) {
    compress(state, data, blocks, round_constants);
}

#else

int matterflow_sha256_extensions_available(void) { return 0; }

void matterflow_sha256_compress(uint32_t state[8], const uint8_t *data, size_t blocks, const uint32_t round_constants[64]) {
    (void)state;
    (void)round_constants;
    (void)data;
    (void)blocks;
    abort();
}

#endif
