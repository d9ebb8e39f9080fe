#ifndef BRADOS_CBRADOSSYSTEM_H
#define BRADOS_CBRADOSSYSTEM_H
/// `syncfs(2)`: flushes the file system that holds `fd` (a GNU extension Swift's Glibc
/// module does not import). Used by `cache import` before it swaps folders in.
int brados_syncfs(int fd);
/// memfd_create(name, MFD_CLOEXEC): an anonymous file in memory; -1 on failure.
int brados_memfd(const char *name);
/// fstatfs(2)'s f_type for `fd` (the file system's magic number); -1 on failure.
long brados_fs_type(int fd);
/// eventfd(0, EFD_CLOEXEC): a counter one thread waits on and others add to; -1 on failure.
int brados_eventfd(void);
/// Makes each of `count` signals in `numbers` write its number, one byte, to `fd` (a pipe's
/// write end), from a handler that does nothing else (async-signal-safe; errno kept;
/// SA_RESTART). The process's one signal pipe: a second call replaces the first's fd.
/// Returns 0, or -1 with errno when a handler could not be installed.
int brados_signals_to_pipe(int fd, const int *numbers, int count);
/// snprintf(buffer, size, "%.*f", decimals, value): a number with fixed decimals, rounded as
/// printf rounds (the exact binary value, half to even), with the C locale's '.' (brados never
/// calls setlocale). Swift's String(format:) gives the same text through CVarArg, whose
/// dynamic casts cost a start-up four protocol-conformance scans. Returns snprintf's result.
int brados_format_fixed(char *buffer, unsigned long size, double value, int decimals);
#endif
