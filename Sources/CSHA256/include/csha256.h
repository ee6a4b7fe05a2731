#ifndef MATTERFLOW_CSHA256_H
#define MATTERFLOW_CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// Whether this processor has the x86 SHA extensions (and SSSE3 and SSE4.1, which the compression uses too):
/// 1 when `matterflow_sha256_compress` may be called, 0 otherwise (always 0 on other architectures). It asks the
/// processor (`cpuid`, slow in a virtual machine) each time: ask once and keep the answer.
int matterflow_sha256_extensions_available(void);

/// Folds `blocks` 64-byte blocks at `data` into the SHA-256 state `state` (the eight words h0...h7, in that
/// order, native byte order), with the processor's SHA instructions and the 64 round constants the caller's portable
/// implementation uses (FIPS 180-4 K0...K63). Only when
/// `matterflow_sha256_extensions_available()` returned 1: elsewhere the processor stops the program on the first
/// instruction it lacks (on other architectures, `abort`), never a wrong digest.
void matterflow_sha256_compress(uint32_t state[8], const uint8_t *data, size_t blocks, const uint32_t round_constants[64]);

#endif
