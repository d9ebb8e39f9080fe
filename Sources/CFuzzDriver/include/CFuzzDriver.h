#ifndef BRADOS_CFUZZDRIVER_H
#define BRADOS_CFUZZDRIVER_H

#include <stddef.h>
#include <stdint.h>

typedef int (*brados_fuzz_callback)(const uint8_t *data, size_t size);

/// 1 when libFuzzer is linked in (a `BRADOS_FUZZ=1` build), else 0.
int brados_fuzz_available(void);

/// Runs libFuzzer's driver (LLVMFuzzerRunDriver) with `callback` as the fuzz target.
/// Returns -1 when libFuzzer is not linked in.
int brados_fuzz_run(int *argc, char ***argv, brados_fuzz_callback callback);

/// An anonymous in-memory file (memfd_create), for inputs read through a descriptor.
int brados_fuzz_memfd(void);

#endif
