// syncfs(2) is a GNU extension that Swift's Glibc module does not import.
#define _GNU_SOURCE
#include <unistd.h>
#include "CBradOSSystem.h"
#include <stdio.h>

int brados_syncfs(int fd) { return syncfs(fd); }

// memfd_create(2) is a GNU extension too: an anonymous file in memory, for what must never
// reach a disk (an encrypted export's database copies).
#include <sys/mman.h>
int brados_memfd(const char *name) { return memfd_create(name, MFD_CLOEXEC); }

// fstatfs(2)'s f_type (sys/vfs.h, which Swift's Glibc module does not import): which file
// system holds `fd` (FUSE: syncfs reaches no daemon); -1 when it cannot be told.
#include <sys/vfs.h>
long brados_fs_type(int fd) {
    struct statfs info;
    return fstatfs(fd, &info) == 0 ? (long)info.f_type : -1;
}

// eventfd(2) (sys/eventfd.h, which Swift's Glibc module does not import): how another thread
// wakes the main thread's executor (BradOSCLI's MainThreadExecutor).
#include <sys/eventfd.h>
int brados_eventfd(void) { return eventfd(0, EFD_CLOEXEC); }

// Signals as bytes on a pipe (the self-pipe idiom): the handler only writes, so a thread
// that reads the pipe does what a signal means (BradOSCLI's SignalWatcher).
#include <errno.h>
#include <signal.h>
#include <string.h>
static volatile sig_atomic_t signal_pipe = -1;
static void brados_on_signal(int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    if (signal_pipe >= 0) { (void)!write(signal_pipe, &byte, 1); }
    errno = saved;
}
int brados_signals_to_pipe(int fd, const int *numbers, int count) {
    signal_pipe = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = brados_on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int index = 0; index < count; index++) {
        if (sigaction(numbers[index], &action, NULL) != 0) { return -1; }
    }
    return 0;
}

int brados_format_fixed(char *buffer, unsigned long size, double value, int decimals) {
    return snprintf(buffer, size, "%.*f", decimals, value);
}
