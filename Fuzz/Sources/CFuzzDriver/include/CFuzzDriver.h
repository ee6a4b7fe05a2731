#ifndef MATTERFLOW_CFUZZDRIVER_H
#define MATTERFLOW_CFUZZDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, `-sanitize=fuzzer`): parses libFuzzer's command line and fuzzes `callback`.
/// The fuzz executable's entry point calls it, because SwiftPM debug builds rename an executable's `main`, so the
/// `main` that libFuzzer brings would never run.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
