#define _GNU_SOURCE
#include "CFuzzDriver.h"
#include <sys/mman.h>

int brados_fuzz_memfd(void) { return memfd_create("brados-fuzz", 0); }

// libFuzzer's entry point for programs with their own main. A fuzzing build
// (BRADOS_FUZZ=1, see Package.swift) links libFuzzer and references it strongly;
// an ordinary build leaves it out and brados-fuzz only replays inputs.
#ifdef BRADOS_FUZZ
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
static brados_fuzz_callback current_callback;
// libFuzzer's runtime references the classic entry point too; it runs the same callback.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return current_callback ? current_callback(data, size) : 0;
}
int brados_fuzz_available(void) { return 1; }
int brados_fuzz_run(int *argc, char ***argv, brados_fuzz_callback callback) {
    current_callback = callback;
    return LLVMFuzzerRunDriver(argc, argv, callback);
}
#else
int brados_fuzz_available(void) { return 0; }
int brados_fuzz_run(int *argc, char ***argv, brados_fuzz_callback callback) {
    (void)argc; (void)argv; (void)callback;
    return -1;
}
#endif
